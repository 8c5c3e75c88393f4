"""Part 1: every annotator scored as a detector — against the published hard labels,
against the leave-one-out majority of the other annotators, and against each other.

Definitions (per item with ``k`` annotators, after the cleaning in `validation.data`):

- **LOO majority** of annotator ``a``: the characters marked by more than half of the
  other ``k - 1`` annotators (count > (k - 1) / 2, strict, as the published hard labels
  use prob > 0.5). With k = 3 that is both others; with k = 6 (ES) three of five; with
  k = 11 (EN) six of ten. ``a`` never votes in its own reference.
- **LOO soft label** of ``a``: per character, the share of the other annotators marking it.
- **Pairwise**: every ordered pair (``a`` as detector, ``b`` as reference) of two
  different annotators of the same item; an example is one (item, a, b).

Each annotator counts at most once per character (its overlapping or adjacent spans are
merged before votes are counted). Cor always compares the annotator's spans as a
probability-1 soft label with a reference vector, with the official Mu-SHROOM rules.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import scoring
from .data import Annotations
from .flat import Flat, coverage


def run(items: pd.DataFrame, ann: Annotations, hard: Flat, soft_vecs, ann_vecs) -> dict:
    """All part-1 tables: ``{name: DataFrame}`` (see README, Part 1)."""
    t = ann.table
    item, lengths = t["item"].to_numpy(), items["text_len"].to_numpy()
    text = items["model_output_text"].to_numpy(dtype=object)
    split = items["split"].to_numpy()
    keys = {"lang": t["lang"].to_numpy(), "annotator": t["annotator"].to_numpy(),
            "item": item, "split": split[item]}
    rows = np.arange(len(t))

    vs_hard = scoring.frame(hard.take(item), ann.clean, text[item],
                            scoring.cors(soft_vecs, item, ann_vecs, rows), **keys)
    merged = vs_hard.copy()
    merged["pred"] = pd.array(ann.merged.to_arrow(), dtype=merged["pred"].dtype)

    loo_ref, loo_vecs = leave_one_out(ann, lengths[item])
    vs_loo = scoring.frame(loo_ref, ann.clean, text[item],
                           scoring.cors(loo_vecs, rows, ann_vecs, rows), **keys)

    det, ref = ordered_pairs(t)
    pair = scoring.frame(ann.clean.take(ref), ann.clean.take(det), text[item[det]],
                         scoring.cors(ann_vecs, ref, ann_vecs, det),
                         lang=t["lang"].to_numpy()[det],
                         annotator=t["annotator"].to_numpy()[det],
                         reference=t["annotator"].to_numpy()[ref],
                         item=item[det], split=split[item[det]])
    out = {
        "vs_hard": scoring.add_language_mean(scoring.summarise(vs_hard, ["lang"])),
        "vs_hard_by_annotator": scoring.summarise(vs_hard, ["lang", "annotator"],
                                                  pooled=False),
        "vs_hard_adjacent_merged": scoring.add_language_mean(
            scoring.summarise(merged, ["lang"])),
        "vs_loo": scoring.add_language_mean(scoring.summarise(vs_loo, ["lang"])),
        "vs_loo_by_annotator": scoring.summarise(vs_loo, ["lang", "annotator"],
                                                 pooled=False),
        "pairwise": scoring.add_language_mean(scoring.summarise(pair, ["lang"])),
        "pairwise_by_annotator": scoring.summarise(pair, ["lang", "annotator"],
                                                   pooled=False),
        "loo_reference_stats": _loo_stats(t, loo_ref),
    }
    out["_frames"] = {"vs_hard": vs_hard, "vs_loo": vs_loo, "pairwise": pair}
    out["_loo"] = (loo_ref, loo_vecs)
    return out


def leave_one_out(ann: Annotations, lengths: np.ndarray) -> tuple[Flat, scoring.CorVectors]:
    """The LOO majority spans and LOO soft vectors, one row per annotation."""
    target, voter = ordered_pairs(ann.table)  # every (annotation, other annotation)
    voters = ann.merged.take(voter)           # row i: the spans voter[i] casts for target[i]
    k_others = ann.table["n_annotators"].to_numpy() - 1
    if (k_others < 1).any():
        raise ValueError("an item has a single annotator; leave-one-out needs two or more.")
    majority, segments, counts = coverage(voters, len(ann.table), target, k_others / 2.0)
    vectors = scoring.fraction_vectors(segments, counts, k_others, lengths)
    return majority, scoring.CorVectors(vectors)


def ordered_pairs(table: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Row indices ``(a, b)`` of every ordered pair of different annotations of an item."""
    left = pd.DataFrame({"item": table["item"].to_numpy(), "a": np.arange(len(table))})
    both = left.merge(left.rename(columns={"a": "b"}), on="item")
    both = both[both["a"] != both["b"]].sort_values(["a", "b"], kind="stable")
    return both["a"].to_numpy(), both["b"].to_numpy()


def majority(ann: Annotations, n_items: int) -> tuple[Flat, Flat, np.ndarray]:
    """Characters marked by more than half of all annotators of each item (raw data)."""
    k = np.bincount(ann.table["item"].to_numpy(), minlength=n_items)
    return coverage(ann.merged, n_items, ann.table["item"].to_numpy(), k / 2.0)


def _loo_stats(table: pd.DataFrame, loo_ref: Flat) -> pd.DataFrame:
    """How often the LOO reference is empty, per language and number of annotators."""
    empty = loo_ref.counts == 0
    df = pd.DataFrame({"lang": table["lang"], "annotators_per_item": table["n_annotators"],
                       "empty": empty})
    out = df.groupby(["lang", "annotators_per_item"]).agg(
        annotations=("empty", "size"), loo_reference_empty=("empty", "mean")).reset_index()
    out["votes_needed"] = (out["annotators_per_item"] - 1) // 2 + 1
    return out[["lang", "annotators_per_item", "votes_needed", "annotations",
                "loo_reference_empty"]]


def recompute_check(items: pd.DataFrame, ann: Annotations, hard: Flat,
                    soft_vecs: scoring.CorVectors) -> pd.DataFrame:
    """How far the published labels are from a plain vote over the raw annotations.

    Per item with ``k`` listed annotators: raw majority = characters marked by more than
    k / 2 of them; raw fraction = the share marking each character. Compared with the
    published hard labels (exact equality, IoU) and soft labels (max abs difference
    <= 1e-6 over the characters, Cor).
    """
    n = len(items)
    lengths = items["text_len"].to_numpy()
    maj, segments, counts = majority(ann, n)
    k = np.bincount(ann.table["item"].to_numpy(), minlength=n)
    frac = scoring.fraction_vectors(segments, counts, k, lengths)
    same_soft = np.array([np.abs(a - b).max(initial=0.0) <= 1e-6
                          for a, b in zip(frac, soft_vecs.vectors)])
    rows = np.arange(n)
    df = scoring.frame(hard, maj, items["model_output_text"].to_numpy(dtype=object),
                       scoring.cors(soft_vecs, rows, scoring.CorVectors(frac), rows),
                       lang=items["lang"].to_numpy())
    summary = scoring.summarise(df, ["lang"])[["lang", "examples", "iou_score", "cor"]]
    ref_lists, maj_lists = hard.lists(), maj.lists()
    same_hard = np.array([a == b for a, b in zip(ref_lists, maj_lists)])
    flags = pd.DataFrame({"lang": items["lang"], "hard_equal": same_hard,
                          "soft_equal": same_soft})
    shares = flags.groupby("lang")[["hard_equal", "soft_equal"]].mean()
    shares.loc["ALL"] = flags[["hard_equal", "soft_equal"]].mean()
    out = summary.merge(shares.reset_index(), on="lang")
    return out.rename(columns={"examples": "items", "iou_score": "iou_raw_majority_vs_hard",
                               "cor": "cor_raw_fraction_vs_soft",
                               "hard_equal": "share_hard_equal",
                               "soft_equal": "share_soft_equal"})
