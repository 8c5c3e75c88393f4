"""Loading the Mu-SHROOM files with per-annotator spans, and the explicit, counted
cleaning of those raw spans (nothing is changed without being reported).

Study decisions on raw annotations (each counted in ``data_handling.csv``):

- ``past_end`` (``end > len(text)``): clipped to ``len(text)``; `mycelium.evaluate`
  rejects such spans, so clipping is a deliberate study decision.
- ``zero_length`` (``start == end``): dropped; they carry no characters and mycelium
  drops them before any metric too.
- ``duplicate`` (the same non-empty span twice from one annotator): collapsed to one, as
  mycelium treats a span list as a set.
- ``overlapping`` (two spans of one annotator sharing characters): kept as given for the
  instance metrics, merged by the character metrics (mycelium's semantics).
- ``adjacent`` (one span ends where the next starts): kept as given (two instances for
  the instance metrics); a sensitivity table re-scores with them merged.
- negative or reversed spans would be an error (the data has none).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

import mycelium

from .flat import Flat, merge

_BIG = np.int64(1) << 32

#: Where the two labelled splits with per-annotator spans live (the repository layout).
FILE_PATTERNS = ("mushroom.*-val.v2*.jsonl", "mushroom.*-tst.v1*.jsonl")
ENV_VAR = "MYCELIUM_MUSHROOM_DIR"
ISSUES = ("past_end", "zero_length", "duplicate", "overlapping", "adjacent")


class DataError(Exception):
    """The data directory is missing, empty, or the data is not what the study expects."""


def data_dir(arg: str | None) -> Path:
    """``--data``, else ``$MYCELIUM_MUSHROOM_DIR``; a `DataError` saying how to fix it."""
    value = arg or os.environ.get(ENV_VAR)
    if not value:
        raise DataError(f"no data directory: pass --data DIR or set {ENV_VAR} to the "
                        "Mu-SHROOM data (see validation/README.md, 'Data').")
    path = Path(value)
    if not path.is_dir():
        raise DataError(f"data directory {str(path)!r} does not exist (from "
                        f"{'--data' if arg else ENV_VAR}).")
    return path


def find_files(root: Path) -> list[Path]:
    """The val v2 and labelled test files below ``root``, sorted by path."""
    files = sorted({p for pat in FILE_PATTERNS for p in root.rglob(pat)})
    if not files:
        raise DataError(f"no Mu-SHROOM files matching {' or '.join(FILE_PATTERNS)} below "
                        f"{str(root)!r}; download splits/val/v2 and splits/test_labeled/v1 "
                        "(see validation/README.md).")
    return files


def load(root: Path, languages: list[str] | None = None) -> pd.DataFrame:
    """The items of the chosen languages (all by default), ordered by language and id."""
    df = mycelium.read_mushroom(find_files(root), keep_extra=True)
    # The loader's provenance (files, hashes) goes to manifest.json; kept in attrs, pandas
    # deep-copies it on every column access, a third of the study's time in its loops.
    df.attrs.clear()
    if "annotations" not in df.columns or df["annotations"].isna().any():
        bad = df.loc[df["annotations"].isna(), "file"].unique() \
            if "annotations" in df.columns else df["file"].unique()
        raise DataError(f"files without per-annotator 'annotations': {list(bad)}; the "
                        "study needs val v2 and test_labeled v1 files.")
    dup = df["id"].duplicated(keep=False)
    if dup.any():
        raise DataError(f"ids {sorted(df.loc[dup, 'id'].unique())[:5]} occur more than "
                        f"once (in {sorted(df.loc[dup, 'file'].unique())}); keep one copy "
                        "of each file below the data directory.")
    df["lang"] = df["lang"].str.upper()
    if languages:
        wanted = [x.upper() for x in languages]
        unknown = sorted(set(wanted) - set(df["lang"]))
        if unknown:
            raise DataError(f"languages {unknown} are not in the data; available: "
                            f"{', '.join(sorted(df['lang'].unique()))}.")
        df = df[df["lang"].isin(wanted)]
    df = df.sort_values(["lang", "split", "id"], kind="stable").reset_index(drop=True)
    df["text_len"] = df["model_output_text"].str.len().astype(np.int64)
    return df


@dataclass(frozen=True)
class Annotations:
    """One row per (item, annotator): who, where, and the raw and cleaned spans."""

    table: pd.DataFrame      # item, lang, annotator, slot, n_annotators
    raw: Flat                # spans exactly as in the file
    clean: Flat              # the study's spans (see the module docstring)
    merged: Flat             # clean, with overlapping and adjacent spans merged
    handling: pd.DataFrame   # per language and issue: spans, items, annotators affected


def annotations(items: pd.DataFrame) -> Annotations:
    """Split ``items.annotations`` into one row per (item, annotator) and clean it."""
    arr = pa.array(items["annotations"])
    entries = arr.flatten()
    item = pa.compute.list_parent_indices(arr).to_numpy().astype(np.int64)
    counts = np.bincount(item, minlength=len(items))
    slot = np.arange(item.size) - np.repeat(np.cumsum(counts) - counts, counts)
    table = pd.DataFrame({
        "item": item, "lang": items["lang"].to_numpy()[item],
        "annotator": entries.field("annotator").to_pylist(), "slot": slot,
        "n_annotators": counts[item]})
    if table.duplicated(["item", "annotator"]).any():
        raise DataError("an annotator appears twice on one item; the study assumes one "
                        "span list per annotator and item.")
    raw = Flat.from_arrow(entries.field("spans"))
    text_len = items["text_len"].to_numpy()[item]
    clean, flags = _clean(raw, text_len[raw.row])
    merged = merge(clean, adjacent=True)
    return Annotations(table, raw, clean, merged, _handling(table, flags))


def _clean(raw: Flat, text_len: np.ndarray) -> tuple[Flat, dict[str, np.ndarray]]:
    """Clip past-the-end spans, drop zero-length ones and duplicates.

    Returns the clean spans and, per issue, the annotation row of every affected span.
    """
    s, e = raw.start, raw.end
    if (s < 0).any() or (e < s).any():
        k = int(np.flatnonzero((s < 0) | (e < s))[0])
        raise DataError(f"annotation span [{s[k]}, {e[k]}] is negative or reversed; the "
                        "study has no rule for it.")
    flags = {"past_end": raw.row[e > text_len], "zero_length": raw.row[s == e]}
    e = np.minimum(e, text_len)
    s = np.minimum(s, e)
    order = np.lexsort((e, s, raw.row))
    r, so, eo = raw.row[order], s[order], e[order]
    # Issues are counted in processing order: a zero-length span repeated twice counts
    # as two zero-length spans, never as a duplicate.
    dup = np.concatenate(([False], (r[1:] == r[:-1]) & (so[1:] == so[:-1])
                          & (eo[1:] == eo[:-1]))) & (eo > so)
    flags["duplicate"] = r[dup]
    keep = (eo > so) & ~dup
    clean = Flat(raw.n, r[keep], so[keep], eo[keep])
    flags.update(_neighbours(clean))
    return clean, flags


def _neighbours(clean: Flat) -> dict[str, np.ndarray]:
    """Annotation rows of the clean spans that overlap or touch an earlier span of theirs."""
    same = np.concatenate(([False], clean.row[1:] == clean.row[:-1]))
    key = clean.row * _BIG
    reach = np.concatenate(([-1], (np.maximum.accumulate(key + clean.end) - key)[:-1]))
    return {"overlapping": clean.row[same & (clean.start < reach)],
            "adjacent": clean.row[same & (clean.start == reach)]}


def _handling(table: pd.DataFrame, flags: dict) -> pd.DataFrame:
    """Spans, annotations, items and annotators affected by each issue, per language."""
    return pd.concat([_issue_rows(issue, table, flags[issue]) for issue in ISSUES],
                     ignore_index=True)


_ACTIONS = {
    "zero_length": "dropped (no characters; mycelium drops them too)",
    "duplicate": "collapsed to one (a span list is a set)",
    "past_end": "clipped to len(text) (evaluate rejects it; study decision)",
    "overlapping": "kept for instance metrics; merged by character metrics",
    "adjacent": "kept as given (two instances); merged in a sensitivity table",
}


def _issue_rows(issue: str, table: pd.DataFrame, ann_rows: np.ndarray) -> pd.DataFrame:
    hit = table.iloc[ann_rows]
    out = []
    for lang in sorted(table["lang"].unique()) + ["ALL"]:
        sel = hit if lang == "ALL" else hit[hit["lang"] == lang]
        base = table if lang == "ALL" else table[table["lang"] == lang]
        out.append({"lang": lang, "issue": issue, "action": _ACTIONS[issue],
                    "spans": int(len(sel)),
                    "annotations": int(sel[["item", "annotator"]].drop_duplicates().shape[0]),
                    "items": int(sel["item"].nunique()),
                    "annotators": int(sel["annotator"].nunique()),
                    "annotations_total": int(len(base)),
                    "items_total": int(base["item"].nunique())})
    return pd.DataFrame(out)


def silent_annotators(ann: Annotations) -> pd.DataFrame:
    """Annotators who marked no character on any of their items (kept in the study)."""
    marked = np.bincount(ann.clean.row, minlength=len(ann.table)) > 0
    df = ann.table.assign(marked=marked)
    per = df.groupby(["lang", "annotator"]).agg(items=("item", "size"),
                                                items_marked=("marked", "sum"))
    return per[per["items_marked"] == 0].reset_index()
