"""The dataframe faces over one engine: ``engine`` scores span columns and reduces them
per group into tidy Arrow tables (``groups`` owns group keys, ``compare`` detector
comparisons); ``pandas`` (the ``df.mycelium`` accessor), ``polars`` (DataFrame and Expr
namespaces), ``polars_lazy`` (the LazyFrame namespace, on Polars' streaming engine) and
``spark`` (``mapInArrow`` statistics, Spark's GROUP BY SUM) are thin adapters that convert
their frame type to Arrow and back. Every face's numbers equal `mycelium.evaluate` on the
same rows, bit for bit.
"""
