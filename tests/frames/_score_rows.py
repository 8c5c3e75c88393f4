"""Rows with detector scores for the engine tests of the score metrics: texts, reference
and predicted spans, token offsets (special tokens, sub-tokens) with tied or distinct
scores, soft predictions, and group keys with nulls and NaN; and the truth,
`mycelium.evaluate` on each group's rows."""

from __future__ import annotations

import math

import numpy as np

import mycelium
from mycelium.metrics import fixed_average

WORDS = ["alpha", "be", "gamma", "d", "epsilon", "zeta", "eta", "theta"]
GRID = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]


def _spans(rng, text: str, most: int) -> list[dict]:
    out = []
    for _ in range(int(rng.integers(0, most + 1))):
        if not text:
            break
        a = int(rng.integers(0, len(text)))
        out.append({"start": a, "end": int(rng.integers(a, len(text) + 1))})
    return out


def _tokens(rng, words: list[str]) -> list[list[int]]:
    """A special token, each word in one or two sub-tokens, a special token."""
    offsets, pos = [[0, 0]], 0
    for w in words:
        cut = int(rng.integers(1, len(w) + 1))
        offsets.append([pos, pos + cut])
        if cut < len(w):
            offsets.append([pos + cut, pos + len(w)])
        pos += len(w) + 1
    return offsets + [[0, 0]]


def make_rows(n: int = 60, seed: int = 0, *, null_refs: bool = False) -> dict[str, list]:
    """Columns ``id, model, lang, text, ref, pred, offsets, scores, soft``."""
    rng = np.random.default_rng(seed)
    out: dict[str, list] = {k: [] for k in ("id", "model", "lang", "text", "ref", "pred",
                                            "offsets", "scores", "soft")}
    for i in range(n):
        words = [WORDS[int(k)] for k in rng.integers(0, len(WORDS), int(rng.integers(0, 9)))]
        text = " ".join(words)
        offsets = _tokens(rng, words)
        tied = rng.random() < 0.5
        out["id"].append(f"ex-{i}")
        out["model"].append([None, "a", "b", "c"][int(rng.integers(0, 4))])
        out["lang"].append([None, math.nan, 1.0, 2.0][int(rng.integers(0, 4))])
        out["text"].append(text)
        out["ref"].append(None if null_refs and i % 11 == 3 else _spans(rng, text, 2))
        out["pred"].append(_spans(rng, text, 2))
        out["offsets"].append(offsets)
        out["scores"].append([float(rng.choice(GRID)) if tied else float(rng.random())
                              for _ in offsets])
        out["soft"].append([{**s, "prob": float(rng.choice(GRID))}
                            for s in _spans(rng, text, 3)])
    return out


#: name -> (evaluate's data arguments, each the name of a `make_rows` column; the
#: options, the same for every face).
CASES = {
    "token macro": ({"token_offsets": "offsets", "token_scores": "scores"}, {}),
    "token micro": ({"token_offsets": "offsets", "token_scores": "scores"},
                    {"average": "micro"}),
    "token at 0.5": ({"token_offsets": "offsets", "token_scores": "scores"},
                     {"threshold": 0.5}),
    "token at 0.4, ragtruth": ({"token_offsets": "offsets", "token_scores": "scores"},
                               {"threshold": 0.4, "profile": "ragtruth"}),
    "token, psiloqa rules": ({"token_offsets": "offsets", "token_scores": "scores"},
                             {"threshold": 0.5, "profile": "psiloqa"}),
    # token_level (tokens as items) and response_level, summed as the span metrics are
    "token at 0.5, lettucedetect": ({"token_offsets": "offsets", "token_scores": "scores"},
                                    {"threshold": 0.5, "profile": "lettucedetect"}),
    "soft at 0.5, micro": ({"soft_predictions": "soft"},
                           {"threshold": 0.5, "average": "micro"}),
    "spans and scores": ({"predictions": "pred", "token_offsets": "offsets",
                          "token_scores": "scores"},
                         {"metrics": ["char_auroc", "char_ap", "response_auroc", "iou",
                                      "character", "response_level"]}),
    "spans, ragtruth": ({"predictions": "pred"}, {"profile": "ragtruth"}),
    "drop, trim, nan": ({"token_offsets": "offsets", "token_scores": "scores"},
                        {"threshold": 0.3, "missing": "drop", "trim_spans": "whitespace",
                         "zero_division": "nan", "average": "micro"}),
}
#: The frame faces' keyword argument of each data argument of `mycelium.evaluate`.
FACE_ARGUMENT = {"token_offsets": "token_offsets_col", "token_scores": "token_scores_col",
                 "soft_predictions": "soft_pred_col", "predictions": "pred_col"}


def face_kwargs(case: str) -> tuple[str | None, dict]:
    """(the prediction column or None, the other keyword arguments of a frame face)."""
    data, options = CASES[case]
    kwargs = {FACE_ARGUMENT[k]: v for k, v in data.items()}
    return kwargs.pop("pred_col", None), {**kwargs, **options}


def _key(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else v


def truth(columns: dict[str, list], case: str, by: list[str]) -> list[tuple]:
    """``(*keys, metric, measure, value, examples, average, profile, signature)`` from
    `mycelium.evaluate` on each group's rows, groups sorted (null and NaN one key, last)."""
    data, options = CASES[case]
    groups: dict[tuple, list[int]] = {}
    for i in range(len(columns["text"])):
        groups.setdefault(tuple(_key(columns[b][i]) for b in by), []).append(i)
    out = []
    for key in sorted(groups, key=lambda k: tuple((v is None, v) for v in k)):
        rows = groups[key]
        pick = {arg: [columns[col][i] for i in rows] for arg, col in data.items()}
        preds = pick.pop("predictions", None)
        report = mycelium.evaluate([columns["ref"][i] for i in rows], preds,
                                   text=[columns["text"][i] for i in rows], **pick,
                                   **options)
        meta = report["meta"]
        for metric, measures in report.items():
            if metric == "meta":
                continue
            for measure, value in measures.items():
                out.append((*key, metric, measure, value, meta["examples"],
                            fixed_average(metric) or meta["average"], meta["profile"],
                            meta["signature"]))
    return out


def same_rows(got: list[tuple], want: list[tuple]) -> bool:
    """Equal rows, values bit for bit (NaN equal to NaN), a NaN key equal to null."""
    if len(got) != len(want):
        return False
    for g, w in zip(got, want):
        if len(g) != len(w):
            return False
        for a, b in zip(g, w):
            if _key(a) is None and _key(b) is None:
                continue
            if isinstance(a, float) and isinstance(b, float):
                if a != b or math.copysign(1.0, a) != math.copysign(1.0, b):
                    return False
            elif a != b:
                return False
    return True
