"""FaithBench (NAACL 2025): its files, its gold rules, and its response-level detector table.

FaithBench (vectara/FaithBench) holds summaries by 10 LLMs, annotated by 2–5 annotators
with character spans of typed hallucinations (Unwanted, split into Intrinsic and
Extrinsic; Questionable; Benign), and 8 detectors' response-level predictions. The
published detector table (balanced accuracy and macro F1) depends on a **gold rule**:
which annotators count, how an absent annotator counts, how the labels of an item are
pooled, which classes are hallucinated, how scores are binarised and how a missing
prediction counts. Each of these is a named option of `GoldRule`, recorded in the
signature of every table.

Two sources (`read_items`, `read_annotations`):

- ``"companion"``: the authors' annotation exports (forrestbao/FaithBench @ 0497b6d,
  ``companion/assign/batch_5_src_no_sports/results/batch_{1..16}_annotation.json``),
  including batch 13, with ``companion/assign/annotation_config.json`` (the paper's
  skipped samples and per-batch annotator selection). The paper's table was computed from
  these files (``eval/utils.py`` ``DetectorEvaluator`` there, ``eval/eval_detectors.ipynb``
  for the numbers);
- ``"release"``: the public release (vectara/FaithBench, ``data_for_release/batch_*.json``):
  15 batches, no batch 13, with the 50 items the paper skipped.

``FaithBench.csv`` (the release's per-response worst and best labels) is read by
`read_labels_csv`.

The paper's rule (``convention="paper"``), as ``DetectorEvaluator`` applies it:

1. skip the listed samples (batch 5 ids 40–49, 10: 10–19, 11: 0–9, 12: 20–29, 15: 40–49);
2. keep only the listed annotators in batches 7, 8, 10, 11, 13, 16 (all others elsewhere);
3. pool the label lists of every kept annotation of an item as a set, and add
   "Consistent" once per missing annotator: up to 3 annotators in batches 2, 3, 4, 5, 10
   and 2 elsewhere;
4. worst pooling: Unwanted > Questionable > Benign > Consistent; best pooling:
   Consistent > Benign > Questionable > Unwanted;
5. hallucinated (0) if the pooled class is Unwanted or Questionable, else consistent (1):
   Benign counts as consistent;
6. HHEM scores < 0.5 are hallucinated (0), others consistent (1); binary detectors are
   taken as they are (1 = consistent);
7. a missing or invalid prediction is scored as wrong (``1 - gold``);
8. scikit-learn's balanced accuracy and macro F1 over the kept items.

Annotators appear only as pseudonymous ids (`pseudonym`): the files carry real names,
and nothing this module returns, records or raises prints them. The ids are a digest of
the key the paper's code identifies an annotator by, so they are stable across the two
sources and across calls; they are pseudonymous, not anonymous.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from .._version import __version__
from ..core.signature import protocol_signature

__all__ = ["GoldRule", "CONVENTIONS", "DETECTORS", "SCORE_DETECTORS", "detector_table",
           "gold_labels", "read_items", "read_annotations", "read_labels_csv",
           "annotation_frame", "pseudonym", "pool", "predictions", "balanced_accuracy",
           "f1_macro"]

#: The detectors with predictions, by the release's keys (the companion's ``meta_`` keys
#: are renamed to these), in the release's order.
DETECTORS = ("hhemv1", "hhem-2.1", "hhem-2.1-english", "trueteacher", "true_nli",
             "gpt-3.5-turbo", "gpt-4-turbo", "gpt_4o")
#: Detectors whose predictions are consistency scores in [0, 1] (binarised at the
#: threshold); the others are 0/1 labels, 1 = consistent.
SCORE_DETECTORS = ("hhemv1", "hhem-2.1", "hhem-2.1-english")
#: The four classes, worst first.
CLASSES = ("Unwanted", "Questionable", "Benign", "Consistent")

_COMPANION = Path("companion") / "assign"
_RESULTS = _COMPANION / "batch_5_src_no_sports" / "results"
_RELEASE = Path("data_for_release")
#: The companion's keys of the release's detectors (only GPT-4o is spelt differently).
_META = {("meta_gpt-4o" if d == "gpt_4o" else "meta_" + d): d for d in DETECTORS}


@dataclass(frozen=True)
class GoldRule:
    """Every choice between FaithBench's files and a detector table, named.

    Attributes
    ----------
    source : {"companion", "release"}
        Which files are read (see the module docstring).
    skip : {"paper", "none"}
        Skip the samples ``annotation_config.json`` lists, or keep every item.
    annotators : {"paper", "all"}
        Keep only the per-batch selection of ``annotation_config.json``, or every
        annotator who left an annotation.
    pad : {"paper", "none"}
        Count a missing annotator as "Consistent", up to 3 annotators in the batches
        ``annotation_config.json`` lists as ``three_annotators`` and 2 elsewhere; or add
        nothing (an item nobody annotated is then pooled from no label at all, which is
        "Consistent" under worst pooling and, as the paper's code has it, "Unwanted"
        under best pooling; see `pool`).
    pooling : {"worst", "best"}
        Worst: Unwanted > Questionable > Benign > Consistent; best: the reverse.
    hallucinated : tuple of str
        The pooled classes that are hallucinated (0); the others, Benign included, are
        consistent (1).
    threshold : float
        HHEM scores below it are hallucinated.
    missing : {"wrong"}
        A missing or invalid prediction is scored as wrong (``1 - gold``).
    """

    source: str = "companion"
    skip: str = "paper"
    annotators: str = "paper"
    pad: str = "paper"
    pooling: str = "worst"
    hallucinated: tuple[str, ...] = ("Unwanted", "Questionable")
    threshold: float = 0.5
    missing: str = "wrong"

    def __post_init__(self) -> None:
        for name, valid in (("source", ("companion", "release")), ("skip", ("paper", "none")),
                            ("annotators", ("paper", "all")), ("pad", ("paper", "none")),
                            ("pooling", ("worst", "best")), ("missing", ("wrong",))):
            value = getattr(self, name)
            if value not in valid:
                raise ValueError(f"Expected {name} in {', '.join(map(repr, valid))}, got "
                                 f"{value!r}, at GoldRule({name}=...); fix by passing one "
                                 "of them.")
        unknown = [c for c in self.hallucinated if c not in CLASSES]
        if unknown:
            raise ValueError(f"Expected hallucinated classes among {', '.join(CLASSES)}, "
                             f"got {unknown!r}, at GoldRule(hallucinated=...); fix by "
                             "naming those classes.")
        if not 0.0 <= float(self.threshold) <= 1.0:
            raise ValueError(f"Expected a threshold in [0, 1], got {self.threshold!r}, at "
                             "GoldRule(threshold=...); fix by passing a score threshold.")

    def signature(self) -> str:
        """Every choice, as one string.

        Examples
        --------
        >>> for part in GoldRule().signature().split("|")[:11]:
        ...     print(part)
        faithbench
        source:companion
        skip:paper
        annotators:paper
        pad:paper
        pooling:worst
        hallucinated:Unwanted+Questionable
        benign:consistent
        hhem:<0.5
        missing:wrong
        metrics:sklearn-balanced_accuracy+f1_macro
        """
        benign = "hallucinated" if "Benign" in self.hallucinated else "consistent"
        return "faithbench|" + protocol_signature([
            ("source", self.source), ("skip", self.skip), ("annotators", self.annotators),
            ("pad", self.pad), ("pooling", self.pooling),
            ("hallucinated", "+".join(self.hallucinated)), ("benign", benign),
            ("hhem", f"<{self.threshold:g}"), ("missing", self.missing),
            ("metrics", "sklearn-balanced_accuracy+f1_macro"), ("mycelium", __version__)])


#: The two conventions of `detector_table`: the paper's, and the same rule on the
#: public release (whose items differ: no batch 13; the 50 skipped items are there but
#: skipped, as the paper skips them by their in-batch ids).
CONVENTIONS = {"paper": GoldRule(source="companion"), "release": GoldRule(source="release")}


def pseudonym(key: str) -> str:
    """The pseudonymous id of an annotator key (a digest: stable, not reversible
    without guessing the key).

    Examples
    --------
    >>> pseudonym("someone")
    'ann-2a59d59e'
    """
    return "ann-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:8]


def _annotator_key(name: Any, fallback: Any) -> str:
    # The paper's code identifies an annotator by the lower-cased first word of the
    # name, or by the tool's user id when the name is empty (eval/utils.py).
    return str(name).split()[0].lower() if name else str(fallback)


def _folder(path: str | Path) -> Path:
    folder = Path(path)
    if not folder.is_dir():
        raise FileNotFoundError(f"Expected the FaithBench folder (holding companion/ and "
                                f"data_for_release/), got {str(path)!r}, at path; fix by "
                                "passing that folder (MYCELIUM_FAITHBENCH_DIR in tests).")
    return folder


def _batches(folder: Path, source: str) -> list[tuple[int, list[dict]]]:
    if source == "companion":
        files = sorted(folder.joinpath(_RESULTS).glob("batch_*_annotation.json"),
                       key=lambda f: int(f.name.split("_")[1]))
        out = [(int(f.name.split("_")[1]), json.loads(f.read_text(encoding="utf-8")))
               for f in files]
    elif source == "release":
        files = sorted(folder.joinpath(_RELEASE).glob("batch_*.json"),
                       key=lambda f: int(f.stem.split("_")[1]))
        out = [(int(f.stem.split("_")[1]),
                json.loads(f.read_text(encoding="utf-8"))["samples"]) for f in files]
    else:
        raise ValueError(f"Expected source 'companion' or 'release', got {source!r}, at "
                         "source; fix by passing one of them.")
    if not out:
        where = _RESULTS if source == "companion" else _RELEASE
        raise FileNotFoundError(f"Expected FaithBench batch files under "
                                f"{str(folder / where)!r}, got none, at source={source!r}; "
                                "fix by pointing path at the FaithBench data folder.")
    return out


def read_items(path: str | Path, source: str = "companion") -> pd.DataFrame:
    """One row per item (source, summary): ``batch``, ``sample_id`` (within the batch),
    ``raw_sample_id``, ``summarizer``, ``source``, ``summary`` and one column per detector
    of `DETECTORS` (NaN where the file has no prediction).

    Parameters
    ----------
    path : str or pathlib.Path
        The FaithBench data folder.
    source : {"companion", "release"}

    Returns
    -------
    pandas.DataFrame
        In batch and sample order.

    Examples
    --------
    >>> import os
    >>> folder = os.environ.get("MYCELIUM_FAITHBENCH_DIR")  # needs the FaithBench data
    >>> items = read_items(folder, "release") if folder else None
    >>> items is None or (len(items), int(items["batch"].nunique())) == (750, 15)
    True
    """
    rows = []
    for batch, samples in _batches(_folder(path), source):
        for s in samples:
            if source == "companion":
                meta = {_META[k]: v for k, v in s.items() if k in _META}
                head = {"raw_sample_id": s["meta_sample_id"], "summarizer": s["meta_model"]}
            else:
                md = s["metadata"]
                meta = {d: md.get(d) for d in DETECTORS}
                head = {"raw_sample_id": md["raw_sample_id"], "summarizer": md["summarizer"]}
            rows.append({"batch": batch, "sample_id": s["sample_id"], **head,
                         "source": s["source"], "summary": s["summary"],
                         **{d: meta.get(d) for d in DETECTORS}})
    out = pd.DataFrame(rows)
    for d in DETECTORS:
        out[d] = pd.to_numeric(out[d], errors="coerce").astype("float64")
    return out


def read_annotations(path: str | Path, source: str = "companion") -> pd.DataFrame:
    """One row per annotation record: ``batch``, ``sample_id``, ``annotator`` (a
    pseudonymous id), ``labels`` (the list as recorded; the raw exports' spelling
    ``"Unwanted.Instrinsic"`` is read as ``"Unwanted.Intrinsic"``), ``start``, ``end``
    (half-open offsets into the summary; missing in 3 companion records, as <NA>).

    The annotators' names and free-text notes are not read out.

    Parameters
    ----------
    path : str or pathlib.Path
        The FaithBench data folder (as for `read_items`).
    source : {"companion", "release"}
        The paper's companion exports or the public release.

    Returns
    -------
    pandas.DataFrame
        In the files' order, annotators as ``ann-<8 hex>`` ids.

    Examples
    --------
    >>> import os
    >>> folder = os.environ.get("MYCELIUM_FAITHBENCH_DIR")  # needs the FaithBench data
    >>> notes = read_annotations(folder, "release") if folder else None
    >>> notes is None or (len(notes), bool(notes["annotator"].str.startswith("ann-").all())
    ...                   ) == (2189, True)
    True
    """
    rows = []
    for batch, samples in _batches(_folder(path), source):
        for s in samples:
            for a in s["annotations"]:
                uid = a.get("annotator", a.get("annotator_id"))
                labels = [("Unwanted.Intrinsic" if x == "Unwanted.Instrinsic" else x)
                          for x in a["label"]]
                rows.append({"batch": batch, "sample_id": s["sample_id"],
                             "annotator": pseudonym(_annotator_key(a["annotator_name"], uid)),
                             "labels": labels, "start": a.get("summary_start"),
                             "end": a.get("summary_end")})
    out = pd.DataFrame(rows, columns=["batch", "sample_id", "annotator", "labels", "start",
                                      "end"])
    for c in ("start", "end"):
        out[c] = out[c].astype("Int64")
    return out


def read_labels_csv(path: str | Path) -> pd.DataFrame:
    """``FaithBench.csv``: ``batch``, ``sample_id`` (from its row order, 16 batches × 50),
    ``source``, ``summary``, ``summarizer``, ``worst_label``, ``best_label``.

    Its labels pool all annotators of a batch (no selection, no skipping); they are not
    the paper's gold labels.

    Examples
    --------
    >>> import os
    >>> folder = os.environ.get("MYCELIUM_FAITHBENCH_DIR")  # needs the FaithBench data
    >>> labels = read_labels_csv(folder) if folder else None
    >>> labels is None or int((labels["worst_label"] == "Unwanted").sum()) == 485
    True
    """
    file = _folder(path) / "FaithBench.csv"
    df = pd.read_csv(file, keep_default_na=False)
    expected = ["source", "summary", "LLM", "worst-label", "best-label"]
    if list(df.columns) != expected:
        raise ValueError(f"Expected the columns {expected}, got {list(df.columns)}, at "
                         f"{str(file)!r}; fix by passing the release's FaithBench.csv.")
    n = np.arange(len(df))
    return pd.DataFrame({"batch": n // 50 + 1, "sample_id": n % 50, "source": df["source"],
                         "summary": df["summary"], "summarizer": df["LLM"],
                         "worst_label": df["worst-label"], "best_label": df["best-label"]})


def _config(folder: Path) -> dict:
    file = folder / _COMPANION / "annotation_config.json"
    if not file.is_file():
        raise FileNotFoundError(f"Expected the paper's annotation config at {str(file)!r}, "
                                "got no file, at the paper's skip/annotators/pad rules; "
                                "fix by restoring it or choosing skip='none', "
                                "annotators='all', pad='none'.")
    return json.loads(file.read_text(encoding="utf-8"))


def pool(labels: Iterable[str], pooling: str = "worst") -> str:
    """The class of a set of labels, as the paper's ``worst_pooling_4label`` /
    ``best_pooling_4label`` decide it.

    Only the literal classes count: a label ``"Unwanted.Intrinsic"`` without its parent
    ``"Unwanted"`` is not Unwanted. Quirk of the paper's evaluation: best pooling falls
    back to "Unwanted" when no other class is present, even for an empty set.

    Examples
    --------
    >>> pool(["Benign", "Unwanted", "Consistent"])
    'Unwanted'
    >>> pool(["Benign", "Unwanted", "Consistent"], "best")
    'Consistent'
    >>> pool(["Unwanted.Intrinsic"]), pool([], "best")
    ('Consistent', 'Unwanted')
    """
    present = set(labels)
    if pooling == "worst":
        return next((c for c in CLASSES if c in present), "Consistent")
    if pooling == "best":
        return next((c for c in CLASSES[::-1] if c in present), "Unwanted")
    raise ValueError(f"Expected pooling 'worst' or 'best', got {pooling!r}, at pooling; "
                     "fix by passing one of them.")


def gold_labels(path: str | Path, rule: GoldRule | None = None) -> pd.DataFrame:
    """The gold label of every kept item under ``rule``: the item columns of
    `read_items` plus ``n_annotators`` (kept annotators who annotated it), ``pooled``
    (the class) and ``gold`` (0 hallucinated, 1 consistent).

    Parameters
    ----------
    path : str or pathlib.Path
        The FaithBench data folder.
    rule : GoldRule, optional
        Default: the paper's (``GoldRule()``).

    Returns
    -------
    pandas.DataFrame
        ``attrs["signature"]`` is ``rule.signature()``.

    Examples
    --------
    >>> import os
    >>> folder = os.environ.get("MYCELIUM_FAITHBENCH_DIR")  # needs the FaithBench data
    >>> gold = gold_labels(folder) if folder else None
    >>> gold is None or (len(gold), set(gold["gold"])) == (750, {0, 1})
    True
    """
    rule = rule or GoldRule()
    folder = _folder(path)
    items = read_items(folder, rule.source)
    notes = read_annotations(folder, rule.source)
    needs_config = "paper" in (rule.skip, rule.annotators, rule.pad)
    config = _config(folder) if needs_config else {}
    skip = {int(b): range(*r) for b, r in config.get("skip_samples", {}).items()}
    chosen = {int(b): {pseudonym(n) for n in names}
              for b, names in config.get("annotator_list", {}).items()}
    three = set(config.get("three_annotators", []))
    keep = np.ones(len(items), dtype=bool)
    if rule.skip == "paper":
        keep = np.array([s not in skip.get(b, range(0)) for b, s in
                         zip(items["batch"], items["sample_id"])], dtype=bool)
    if rule.annotators == "paper":
        # Quirk of the paper's evaluation: a record without a span or with an empty label
        # list still counts its annotator as present (no "Consistent" is padded for them).
        sel = np.array([b not in chosen or a in chosen[b]
                        for b, a in zip(notes["batch"], notes["annotator"])], dtype=bool)
        notes = notes[sel]
    by_item: dict[tuple[int, int], tuple[set, set]] = {}
    for b, s, a, labels in zip(notes["batch"], notes["sample_id"], notes["annotator"],
                               notes["labels"]):
        who, what = by_item.setdefault((int(b), int(s)), (set(), set()))
        who.add(a)
        # The companion exports spell the subtype "Instrinsic"; pooling reads only the
        # parent classes, so the respelling of `read_annotations` changes nothing here.
        what.update(labels)
    out = items[keep].reset_index(drop=True)
    n_ann, pooled = [], []
    for b, s in zip(out["batch"], out["sample_id"]):
        who, what = by_item.get((int(b), int(s)), (set(), set()))
        labels = set(what)
        if rule.pad == "paper":
            size = 3 if int(b) in three else 2
            if len(who) < size:
                labels.add("Consistent")
        n_ann.append(len(who))
        pooled.append(pool(labels, rule.pooling))
    out["n_annotators"] = np.asarray(n_ann, dtype=np.int64)
    out["pooled"] = pooled
    out["gold"] = np.array([0 if c in rule.hallucinated else 1 for c in pooled],
                           dtype=np.int64)
    out.attrs["signature"] = rule.signature()
    return out


def predictions(items: pd.DataFrame, detector: str, rule: GoldRule) -> np.ndarray:
    """A detector's 0/1 predictions on ``items`` (holding ``gold``): HHEM scores below
    ``rule.threshold`` are 0; a missing or invalid value is ``1 - gold`` (wrong).

    Examples
    --------
    >>> items = pd.DataFrame({"gold": [0, 1, 1], "hhemv1": [0.2, 0.7, float("nan")],
    ...                       "true_nli": [1.0, float("nan"), 0.0]})
    >>> predictions(items, "hhemv1", GoldRule()).tolist()
    [0, 1, 0]
    >>> predictions(items, "true_nli", GoldRule()).tolist()
    [1, 0, 0]
    """
    values = items[detector].to_numpy(dtype=np.float64)
    gold = items["gold"].to_numpy()
    if detector in SCORE_DETECTORS:
        pred = np.where(values < rule.threshold, 0, 1)
        valid = ~np.isnan(values)
    else:
        valid = (values == 0) | (values == 1)
        pred = np.where(valid, values, 0).astype(np.int64)
    return np.where(valid, pred, 1 - gold).astype(np.int64)


def balanced_accuracy(gold: np.ndarray, pred: np.ndarray) -> float:
    """The mean recall of the classes present in ``gold`` (sklearn's
    ``balanced_accuracy_score``).

    Examples
    --------
    >>> balanced_accuracy(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1]))
    0.75
    """
    recalls = [float(np.mean(pred[gold == c] == c)) for c in np.unique(gold)]
    return float(np.mean(recalls))


def f1_macro(gold: np.ndarray, pred: np.ndarray) -> float:
    """The mean F1 of the classes present in either side (sklearn's ``f1_score`` with
    ``average="macro"``; a class without true or predicted items has F1 0).

    Examples
    --------
    >>> round(f1_macro(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 1])), 4)
    0.7333
    """
    scores = []
    for c in np.union1d(np.unique(gold), np.unique(pred)):
        tp = int(np.sum((pred == c) & (gold == c)))
        den = int(np.sum(pred == c)) + int(np.sum(gold == c))
        scores.append(2 * tp / den if den else 0.0)
    return float(np.mean(scores))


def detector_table(path: str | Path, *, convention: str = "paper", pooling: str = "worst",
                   **choices: Any) -> pd.DataFrame:
    """Balanced accuracy and macro F1 of every detector against the gold labels.

    Parameters
    ----------
    path : str or pathlib.Path
        The FaithBench data folder (holding ``companion/`` and ``data_for_release/``).
    convention : {"paper", "release"}
        The paper's rule on the companion exports, or the same rule on the public
        release (`CONVENTIONS`).
    pooling : {"worst", "best"}
        The label pooling (the paper's main table is worst pooling).
    **choices
        Any other field of `GoldRule` to change (e.g. ``annotators="all", pad="none"``
        for the naive rule); recorded in the signature.

    Returns
    -------
    pandas.DataFrame
        One row per detector of `DETECTORS`: ``detector``, ``balanced_accuracy``,
        ``f1_macro`` (fractions, not ×100), ``n`` (items scored), ``missing`` (items
        without a valid prediction, scored as wrong). ``attrs["signature"]`` states every
        choice of the gold rule; ``attrs["rule"]`` holds them as a dict.

    Raises
    ------
    ValueError
        An unknown convention, pooling or choice.
    FileNotFoundError
        The folder or its files are missing.

    Examples
    --------
    >>> import os
    >>> folder = os.environ.get("MYCELIUM_FAITHBENCH_DIR")  # needs the FaithBench data
    >>> table = detector_table(folder) if folder else None
    >>> table is None or round(float(table.set_index("detector").loc[
    ...     "hhemv1", "balanced_accuracy"]) * 100, 2) == 48.70
    True
    """
    if convention not in CONVENTIONS:
        raise ValueError(f"Expected convention in {', '.join(map(repr, CONVENTIONS))}, got "
                         f"{convention!r}, at convention; fix by passing one of them.")
    known = {f for f in GoldRule.__dataclass_fields__ if f != "pooling"}
    unknown = sorted(set(choices) - known)
    if unknown:
        raise TypeError(f"Expected GoldRule fields among {', '.join(sorted(known))}, got "
                        f"{unknown}, at detector_table(**choices); fix by naming fields of "
                        "GoldRule.")
    rule = replace(CONVENTIONS[convention], pooling=pooling, **choices)
    items = gold_labels(path, rule)
    gold = items["gold"].to_numpy()
    rows = []
    for d in DETECTORS:
        pred = predictions(items, d, rule)
        values = items[d].to_numpy(dtype=np.float64)
        valid = ~np.isnan(values) if d in SCORE_DETECTORS else (values == 0) | (values == 1)
        rows.append({"detector": d, "balanced_accuracy": balanced_accuracy(gold, pred),
                     "f1_macro": f1_macro(gold, pred), "n": int(gold.size),
                     "missing": int((~valid).sum())})
    out = pd.DataFrame(rows)
    out.attrs["signature"] = rule.signature()
    out.attrs["rule"] = {k: (list(v) if isinstance(v, tuple) else v)
                         for k, v in asdict(rule).items()}
    return out


def annotation_frame(path: str | Path, *, source: str = "companion",
                     types: Iterable[str] | None = None, skip: str = "none") -> pd.DataFrame:
    """One row per item with its per-annotator typed spans, for `mycelium.annotators`.

    Columns: ``batch``, ``sample_id``, ``summarizer``, ``summary`` and ``annotations``:
    a list of ``{"annotator": id, "spans": [{"start", "end", "label"}, ...]}``, one entry
    per pseudonymous annotator of the item's batch (an annotator of the batch who marked
    nothing in the item has an empty list). A span's ``label`` is its most specific
    type: ``Unwanted.Intrinsic``, ``Unwanted.Extrinsic``, ``Unwanted`` (no subtype),
    ``Questionable`` or ``Benign``; a record with several classes gives one span per
    class, and records without a span or a label are left out.

    Parameters
    ----------
    path : str or pathlib.Path
        The FaithBench data folder.
    source : {"companion", "release"}
    types : iterable of str, optional
        Keep only spans of these labels (agreement per type: one frame per type).
    skip : {"none", "paper"}
        Leave out the samples the paper skips.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import os
    >>> folder = os.environ.get("MYCELIUM_FAITHBENCH_DIR")  # needs the FaithBench data
    >>> frame = annotation_frame(folder, types=["Benign"]) if folder else None
    >>> frame is None or {s["label"] for entries in frame["annotations"] for e in entries
    ...                   for s in e["spans"]} == {"Benign"}
    True
    """
    folder = _folder(path)
    items = read_items(folder, source)
    notes = read_annotations(folder, source)
    wanted = None if types is None else set(types)
    if skip == "paper":
        ranges = {int(b): range(*r) for b, r in _config(folder)["skip_samples"].items()}
        keep = [s not in ranges.get(b, range(0)) for b, s in
                zip(items["batch"], items["sample_id"])]
        items = items[np.asarray(keep, dtype=bool)].reset_index(drop=True)
    elif skip != "none":
        raise ValueError(f"Expected skip 'none' or 'paper', got {skip!r}, at skip; fix by "
                         "passing one of them.")
    roster: dict[int, list[str]] = {}
    spans: dict[tuple[int, int, str], list[dict]] = {}
    for b, s, a, labels, st, en in zip(notes["batch"], notes["sample_id"],
                                       notes["annotator"], notes["labels"], notes["start"],
                                       notes["end"]):
        if a not in roster.setdefault(int(b), []):
            roster[int(b)].append(a)
        if pd.isna(st) or pd.isna(en):
            continue
        for label in _span_types(labels):
            if wanted is None or label in wanted:
                spans.setdefault((int(b), int(s), a), []).append(
                    {"start": int(st), "end": int(en), "label": label})
    rows = []
    for b, s, who, text in zip(items["batch"], items["sample_id"], items["summarizer"],
                               items["summary"]):
        entries = [{"annotator": a, "spans": spans.get((int(b), int(s), a), [])}
                   for a in sorted(roster.get(int(b), []))]
        rows.append({"batch": int(b), "sample_id": int(s), "summarizer": who,
                     "summary": text, "annotations": entries})
    return pd.DataFrame(rows)


def _span_types(labels: list[str]) -> list[str]:
    """The most specific types of one record: a subtype replaces its parent."""
    out = [x for x in labels if x != "Unwanted"]
    if "Unwanted" in labels and not any(x.startswith("Unwanted.") for x in labels):
        out.append("Unwanted")
    return sorted(set(out))

