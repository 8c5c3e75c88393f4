"""Other units and breakdowns of the same statistics: ``granularity`` scores over words
or sentences instead of characters (spans mark the units they touch), ``typology``
breaks results down by the hallucination type a span carries. Both transform inputs
for the core pipeline and never re-implement a metric.
"""
