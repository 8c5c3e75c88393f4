"""Uncertainty and comparison, computed by re-summing per-example statistics (spans are
never re-matched): ``bootstrap`` (Poisson-bootstrap intervals keyed by example),
``comparison`` (paired bootstrap and permutation tests between detectors, Holm-corrected)
and ``agreement`` (rank correlation between the detector rankings of two measures).
"""
