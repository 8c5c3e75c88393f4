"""``python -m validation.run --check``: are the committed tables, Markdown, figures and
README reproduced?

- **Tables**: every CSV the run writes is compared with the committed file of the same
  name, and a committed CSV the run no longer writes is a difference. With
  ``--languages``, only the rows of those languages are compared: every per-language row
  depends only on its language's items (the random detector, the bootstrap weights and
  the permutations are keyed by item id or language; the token classifier is always
  trained on every language's validation split), while pooled rows (ALL, MEAN), tables
  over all languages (`POOLED_ONLY`) and Holm-adjusted columns (a family spans the
  languages run: any column named ``*p_holm*`` or ``*significant*``) cannot be, and are
  skipped. Strings must be equal; numbers equal to 1e-9 relative (BLAS summation order
  may differ between machines), NaN equal to NaN.
- With every language run, also: each Markdown file must equal the committed one; each
  committed figure must carry the fingerprint of the reproduced tables it is drawn from
  (`validation.pngmeta`); and ``README.md`` must equal its rendering from the reproduced
  tables (`validation.readme`), so a changed number anywhere in it fails.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

#: Tables whose every row pools the languages run.
POOLED_ONLY = {"metric_tau_summary", "language_weighting"}
RTOL = 1e-9


def family_column(name: str) -> bool:
    """Columns that depend on the family of tests, i.e. on which languages were run."""
    return "p_holm" in name or "significant" in name


def compare(new: Path, committed: Path, languages: list[str] | None) -> list[str]:
    """One line per table difference (empty when every table is reproduced)."""
    problems = []
    subset = {x.upper() for x in languages} if languages else None
    produced = {p.name for p in new.glob("*.csv")}
    for path in sorted(committed.glob("*.csv")):
        if path.name not in produced and path.name != "calibration.csv":
            problems.append(f"{path.name}: committed in {committed} but no longer written "
                            "by the run")
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
            a = a.drop(columns=[c for c in a.columns if family_column(c)])
            b = b.drop(columns=[c for c in b.columns if family_column(c)])
        problems += _rows(path.name, a.reset_index(drop=True), b.reset_index(drop=True))
    return problems


def compare_text(new: Path, committed: Path) -> list[str]:
    """Every Markdown file of the run against the committed one, line by line."""
    problems = []
    for path in sorted(p for p in new.glob("*.md") if p.name != "README.md"):
        old = committed / path.name
        if not old.exists():
            problems.append(f"{path.name}: not committed in {committed}")
            continue
        problems += text_differences(path.name, path.read_text(encoding="utf-8"),
                                     old.read_text(encoding="utf-8"))
    return problems


def text_differences(name: str, new: str, old: str, limit: int = 10) -> list[str]:
    a, b = new.splitlines(), old.splitlines()
    out = [f"{name}: line {i + 1}: committed {y!r}, reproduced {x!r}"
           for i, (x, y) in enumerate(zip(a, b)) if x != y][:limit]
    if len(a) != len(b):
        out.append(f"{name}: {len(b)} lines committed, {len(a)} reproduced")
    return out


def compare_figures(tables: dict, committed: Path, figures: dict[str, list[str]],
                    titles: dict[str, dict[str, str]] | None = None) -> list[str]:
    """Each committed figure's fingerprint against the reproduced tables', and the titles
    it was drawn with against ``titles`` (`validation.figtitles.titles` of the reproduced
    tables), which also must hold no number typed by hand."""
    from . import figtitles
    from .pngmeta import KEY, fingerprint, read_text

    problems = [f"validation/figtitles.py: the number in {x!r} is written by hand; fix by "
                "making it a field filled from the tables" for x in figtitles.literal_numbers()]
    for name, inputs in figures.items():
        if not all(k in tables for k in inputs):
            continue
        path = committed / f"{name}.png"
        if not path.exists():
            problems.append(f"{name}.png: not committed in {committed}")
            continue
        text = read_text(path)
        stored = text.get(KEY)
        wanted = fingerprint(tables, inputs)
        if stored != wanted:
            problems.append(f"{name}.png: drawn from other numbers (fingerprint {stored}, "
                            f"reproduced tables give {wanted}); fix by running "
                            "python -m validation.run")
        if titles is not None and name in titles:
            want = figtitles.stored(titles[name])
            if text.get(figtitles.KEY) != want:
                problems.append(f"{name}.png: titled {text.get(figtitles.KEY)!r}, the "
                                f"reproduced tables give {want!r}; fix by running "
                                "python -m validation.run")
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
