"""Part 2's reference detectors: predictions built from the data, one span set per item.

Every synthetic detector is derived from the published hard labels ``H`` of the item
(except mark-all, mark-none and union), with half-open offsets, clipped to the text:

==============  ==============================================================
``mark_all``    ``[0, len(text))``
``mark_none``   no spans
``shift+3``     every span of H moved right by 3 characters (then clipped; a span
``shift+10``    pushed wholly past the end vanishes), likewise by 10
``truncated``   the first half of every span: ``[s, s + max(1, (e - s) // 2))``
``extended``    every span widened by ``ceil((e - s) / 2)`` characters on each side
``pinpoint``    one character per span: the middle one, ``[m, m + 1)``,
                ``m = s + (e - s - 1) // 2``
``random``      per span of H, a span of the same length at a uniformly random start
                in ``[0, len(text) - length]``; seeded per item from
                ``(seed, crc32(item id))``, so it does not depend on which
                languages are run
``union``       every character any annotator marked (raw annotations, cleaned)
==============  ==============================================================

Annotator detectors are the (up to) ``max_annotators`` annotators with the most items
in each language (at least ``min_items``), scored on the items they annotated.
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from .flat import Flat, merge

SYNTHETIC = ("mark_all", "mark_none", "shift+3", "shift+10", "truncated", "extended",
             "pinpoint", "random", "union")


def synthetic(hard: Flat, lengths: np.ndarray, ids, *, union: Flat, seed: int) -> dict:
    """``{name: Flat}`` with one row per item for every synthetic detector."""
    n = hard.n
    s, e, r = hard.start, hard.end, hard.row
    size = e - s
    limit = lengths[r]
    items = np.arange(n)
    out = {
        "mark_all": _spans(n, items, np.zeros(n, np.int64), lengths),
        "mark_none": Flat(n, *(np.empty(0, np.int64),) * 3),
    }
    for k in (3, 10):
        out[f"shift+{k}"] = _spans(n, r, np.minimum(s + k, limit), np.minimum(e + k, limit))
    out["truncated"] = _spans(n, r, s, s + np.maximum(1, size // 2))
    grow = (size + 1) // 2
    out["extended"] = _spans(n, r, np.maximum(0, s - grow), np.minimum(limit, e + grow))
    mid = s + (size - 1) // 2
    out["pinpoint"] = _spans(n, r, mid, mid + 1)
    out["random"] = _random(hard, lengths, ids, seed)
    out["union"] = union
    return out


def _spans(n: int, row, start, end) -> Flat:
    keep = end > start
    return Flat.build(n, np.asarray(row)[keep], np.asarray(start)[keep],
                      np.asarray(end)[keep])


def _random(hard: Flat, lengths: np.ndarray, ids, seed: int) -> Flat:
    """Spans of the reference lengths at seeded uniform positions, item by item."""
    starts = np.empty_like(hard.start)
    off = hard.offsets
    for item, key in enumerate(ids):
        a, b = off[item], off[item + 1]
        if a == b:
            continue
        rng = np.random.default_rng([seed, zlib.crc32(str(key).encode("utf-8"))])
        room = lengths[item] - (hard.end[a:b] - hard.start[a:b])
        starts[a:b] = rng.integers(0, room + 1)
    return Flat.build(hard.n, hard.row, starts, starts + hard.end - hard.start)


def union_of_annotators(merged: Flat, item_of_row: np.ndarray, n_items: int) -> Flat:
    """Per item, every character at least one annotator marked."""
    flat = Flat.build(n_items, item_of_row[merged.row], merged.start, merged.end)
    return merge(flat, adjacent=True)


def pick_annotators(table: pd.DataFrame, *, max_annotators: int, min_items: int
                    ) -> pd.DataFrame:
    """The annotators used as detectors: ``lang, annotator, items, detector`` (A1, A2, ...)."""
    counts = (table.groupby(["lang", "annotator"]).size().rename("items").reset_index()
              .sort_values(["lang", "items", "annotator"], ascending=[True, False, True]))
    counts = counts[counts["items"] >= min_items]
    counts = counts.groupby("lang", sort=True).head(max_annotators).copy()
    counts["detector"] = "A" + (counts.groupby("lang").cumcount() + 1).astype(str)
    return counts.reset_index(drop=True)
