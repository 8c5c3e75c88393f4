"""The `validation/` study: mycelium's metrics on the Mu-SHROOM data, from one command.

``python -m validation.run --data DIR`` reproduces every table and figure under
``validation/results/``; ``validation/README.md`` explains the method and the findings.
"""
