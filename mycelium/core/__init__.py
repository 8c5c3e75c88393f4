"""The core: spans as columnar batches, every input form, the scoring settings, the
per-example statistics pipeline, and aggregation.

Data flows ``inputs`` → `SpanBatch` (``spans``: validated once, canonical) → the
statistics pipeline (``pipeline``: each metric's per-example sufficient statistics over
one shared workspace) → ``aggregate`` (per example, micro, macro: the only place an
undefined 0/0 is decided). ``settings``, ``profiles`` and ``signature`` resolve and
record the options; ``exactsum``, ``reduce`` and ``engine_sums`` re-sum statistics
exactly per group, in any order, on any engine. The core imports only the metric kernels
below it and the shared ``errors``; every face above reuses it.
"""
