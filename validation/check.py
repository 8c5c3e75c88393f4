"""``python -m validation.run --check``: are the committed tables reproduced?

Every CSV the run writes is compared with the committed file of the same name. With
``--languages``, only the rows of those languages are compared: every per-language row
depends only on its language's items (the random detector and the bootstrap weights are
keyed by item id), while pooled rows (ALL, MEAN), tables over all languages
(``metric_tau_summary``) and Holm-adjusted p-values (a family spans the languages run)
cannot be, and are skipped. Strings must be equal; numbers equal to 1e-9 relative
(BLAS summation order may differ between machines), NaN equal to NaN.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

#: Tables whose every row pools the languages run.
POOLED_ONLY = {"metric_tau_summary"}
#: Columns that depend on the family of tests, i.e. on which languages were run.
FAMILY = {"p_holm", "significant", "minus_mark_all_p_holm"}
RTOL = 1e-9


def compare(new: Path, committed: Path, languages: list[str] | None) -> list[str]:
    """One line per difference (empty when everything is reproduced)."""
    problems = []
    subset = {x.upper() for x in languages} if languages else None
    for path in sorted(new.glob("*.csv")):
        name = path.stem
        old_path = committed / path.name
        if not old_path.exists():
            problems.append(f"{path.name}: not committed in {committed}")
            continue
        if subset is not None and name in POOLED_ONLY:
            continue
        a = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype=str)
        b = pd.read_csv(old_path, keep_default_na=False, na_values=[""], dtype=str)
        if list(a.columns) != list(b.columns):
            problems.append(f"{path.name}: columns {list(a.columns)} != committed "
                            f"{list(b.columns)}")
            continue
        if subset is not None:
            if "lang" in a.columns:
                b = b[b["lang"].isin(subset)]
                a = a[a["lang"].isin(subset)]
            a = a.drop(columns=[c for c in a.columns if c in FAMILY])
            b = b.drop(columns=[c for c in b.columns if c in FAMILY])
        problems += _rows(path.name, a.reset_index(drop=True), b.reset_index(drop=True))
    return problems


def _rows(name: str, a: pd.DataFrame, b: pd.DataFrame) -> list[str]:
    if len(a) != len(b):
        return [f"{name}: {len(a)} rows, committed {len(b)}"]
    out = []
    for col in a.columns:
        x, y = a[col].to_numpy(), b[col].to_numpy()
        for i in np.flatnonzero(~np.array([_same(u, v) for u, v in zip(x, y)])):
            out.append(f"{name}: row {i}, column {col!r}: {x[i]!r}, committed {y[i]!r}")
            if len(out) >= 20:
                return out
    return out


def _same(u, v) -> bool:
    if u == v or (pd.isna(u) and pd.isna(v)):
        return True
    try:
        fu, fv = float(u), float(v)
    except (TypeError, ValueError):
        return False
    return abs(fu - fv) <= RTOL * max(abs(fu), abs(fv), 1e-300) or (
        np.isnan(fu) and np.isnan(fv))
