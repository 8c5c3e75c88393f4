"""Uncertainty and comparison, computed by re-summing per-example statistics (spans are
never re-matched): ``bootstrap`` (Poisson-bootstrap intervals keyed by example),
``comparison`` (paired bootstrap and permutation tests between detectors, Holm-corrected)
and ``agreement`` (rank correlation between the detector rankings of two measures).
"""

from .agreement import metric_agreement
from .comparison import compare

__all__ = ["compare", "metric_agreement"]
