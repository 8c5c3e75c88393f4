"""The `validation/` study: mycelium's metrics on the Mu-SHROOM data, from one command.

``python -m validation.run --data DIR`` reproduces every table and figure under
``validation/results/``; ``validation/README.md`` explains the method and the findings.
"""

import os as _os

# The study's matrix products are small; multi-threaded BLAS only adds contention on a
# shared machine (several times slower there). Set before numpy loads; an explicit
# setting in the environment wins.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")
