"""Token-level baselines from what the files carry: the generating model's tokens and
their logits.

- **Tokens** (`tokens`): per item, the trimmed offsets of `mycelium.scores.baselines.
  token_logit_scores` (``align_tokens(trim=True)``), the untrimmed tiling
  (``align_tokens(trim=False)``: a token's leading whitespace is its own), the library's
  min-max scores and the study's **mid-rank** scores.
- **The tie convention.** The library's score ``(max(l) - l) / (max(l) - min(l))`` puts
  every token tied at the output's largest logit at exactly 0, and spans are runs of
  tokens scoring ``> t``: those tokens can never be marked. Where the logits are
  log-probabilities (SV: all <= 0, most exactly 0.0) that is most tokens, so no threshold
  reaches "mark all" and the baseline loses to mark-all by construction. The mid-rank
  score ``(r - 1/2) / n``, ``r`` the average rank of ``-l`` within the output (ties share
  the mean of their ranks), is in (0, 1), orders tokens exactly as the min-max score does
  (so per-output AUROC is unchanged), gives tied tokens one score inside the range, and
  makes scores comparable across outputs as within-output quantiles.
- **The classifier** (`features`, `validation.logistic`): an L2 logistic regression on
  per-token features, trained on the validation split only (all its languages pooled),
  applied to every test language.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import numpy as np
import pandas as pd

import mycelium
from mycelium.scores.baselines import token_logit_scores
from mycelium.metrics.soft_spearman import average_ranks

FEATURES = ("midrank", "minmax", "z_negated_logit", "tied_at_max", "position",
            "has_digit", "starts_upper", "is_punctuation", "word_start", "log_length",
            "prev_midrank", "next_midrank", "window_max_midrank", "log_tokens")
#: The classifier's penalty (standardised features; fixed before looking at test).
L2 = 1.0


@dataclass(frozen=True)
class Tokens:
    """Per item (lists aligned with ``items``)."""

    trimmed: list        # (n, 2) int64 offsets, align_tokens(trim=True)
    untrimmed: list      # (n, 2) int64 offsets, align_tokens(trim=False)
    strings: list        # the token strings
    logits: list         # float64 logits (the extra EN/DE logit dropped)
    minmax: list         # the library's scores
    midrank: list        # the study's tie-aware scores


def tokens(items: pd.DataFrame) -> Tokens:
    """Offsets, logits and both score conventions of every item."""
    out: dict[str, list] = {k: [] for k in Tokens.__dataclass_fields__}
    cols = ["id", "model_output_text", "model_output_tokens", "model_output_logits"]
    for rec in items[cols].to_dict("records"):
        offsets, minmax = token_logit_scores(rec, extra_logits="drop_last")
        toks = [str(t) for t in _as_list(rec["model_output_tokens"])]
        logits = np.asarray(_as_list(rec["model_output_logits"]), np.float64)[:len(toks)]
        untrimmed = mycelium.align_tokens(rec["model_output_text"], toks, trim=False)
        out["trimmed"].append(np.asarray(offsets, np.int64).reshape(-1, 2))
        out["untrimmed"].append(np.asarray(untrimmed, np.int64).reshape(-1, 2))
        out["strings"].append(toks)
        out["logits"].append(logits)
        out["minmax"].append(np.asarray(minmax, np.float64))
        out["midrank"].append(midrank(logits))
    return Tokens(**out)


def _as_list(value) -> list:
    if isinstance(value, str):  # the Catalan test file's Python-repr strings
        import ast

        return list(ast.literal_eval(value))
    return list(value)


def midrank(logits: np.ndarray) -> np.ndarray:
    """``(r - 1/2) / n`` with ``r`` the average rank of the negated logit (1 = the most
    confident token); ties share one score."""
    n = logits.size
    if n == 0:
        return np.zeros(0)
    return (average_ranks(-logits) - 0.5) / n


def features(toks: Tokens, i: int, text: str) -> np.ndarray:
    """The classifier's features (`FEATURES`) of item ``i``'s tokens, one row each."""
    l = toks.logits[i]
    n = l.size
    if n == 0:
        return np.zeros((0, len(FEATURES)))
    mid = toks.midrank[i]
    sd = l.std()
    z = (l.mean() - l) / sd if sd > 0 else np.zeros(n)
    pos = np.arange(n) / (n - 1) if n > 1 else np.zeros(n)
    trim, tile = toks.trimmed[i], toks.untrimmed[i]
    content = [text[s:e] for s, e in trim.tolist()]
    pad = np.concatenate(([0.5, 0.5], mid, [0.5, 0.5]))
    window = np.max(np.lib.stride_tricks.sliding_window_view(pad, 5), axis=1)
    return np.column_stack([
        mid, toks.minmax[i], z, (l == l.max()).astype(float), pos,
        [any(c.isdigit() for c in s) for s in content],
        [_starts_upper(s) for s in content],
        [bool(s) and all(unicodedata.category(c).startswith("P") for c in s)
         for s in content],
        (trim[:, 0] > tile[:, 0]) | (np.arange(n) == 0),
        np.log1p(trim[:, 1] - trim[:, 0]),
        pad[1:-3], pad[3:-1], window,
        np.full(n, np.log(n)),
    ]).astype(np.float64)


def _starts_upper(s: str) -> bool:
    for c in s:
        if c.isalpha():
            return c.isupper()
    return False


def labels(toks: Tokens, i: int, hard: list) -> np.ndarray:
    """1 for a non-empty (trimmed) token overlapping a reference span, else 0."""
    trim = toks.trimmed[i]
    y = np.zeros(len(trim), dtype=np.float64)
    for s, e in hard:
        y[(trim[:, 0] < e) & (trim[:, 1] > s) & (trim[:, 1] > trim[:, 0])] = 1.0
    return y


def non_empty(toks: Tokens, i: int) -> np.ndarray:
    trim = toks.trimmed[i]
    return trim[:, 1] > trim[:, 0]


def char_scores(offsets: np.ndarray, scores: np.ndarray, n: int) -> np.ndarray:
    """Per character, the highest score of the non-empty tokens covering it (SPEC 9)."""
    v = np.zeros(int(n), dtype=np.float64)
    for (s, e), x in zip(offsets.tolist(), np.asarray(scores).tolist()):
        if e > s:
            v[s:e] = np.maximum(v[s:e], x)
    return v
