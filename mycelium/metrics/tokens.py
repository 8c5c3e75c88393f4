"""Gold and predicted labels of tokens (`TokenLabels`), read by ``token_level`` and by
``response_level`` with ``unit="tokens"``.

A token ``[a, b)`` is gold-positive when it overlaps a *listed* reference span ``[s, e)``
by ``b > s and a < e`` — LettuceDetect's labelling of its training and evaluation data
(KRLabsOrg/LettuceDetect@102f7f29009aeca4365a9d9731e46f13bab099b6:
lettucedetect/datasets/hallucination_dataset.py, ``HallucinationDataset.__getitem__``:
``token_abs_end > ann["start"] and token_abs_start < ann["end"]``). For non-empty tokens
and spans that is a shared character; a zero-length token at ``p`` is positive when
``s < p < e``, and a zero-length reference span at ``s`` marks a token with ``a < s < b``.
A token is predicted positive when its score passes the threshold (``> t``, or ``>= t``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import intervals as iv

__all__ = ["TokenLabels", "label_tokens"]


@dataclass(frozen=True, eq=False)
class TokenLabels:
    """Per token (every token of every example, zero-length ones included): its example,
    gold label and predicted label."""

    n: int
    example: np.ndarray
    gold: np.ndarray
    pred: np.ndarray

    def counts(self) -> dict[str, np.ndarray]:
        """Per example ``tp``, ``fp``, ``fn``, ``tn`` over its tokens (int64)."""
        g, p, ex = self.gold, self.pred, self.example
        return {name: np.bincount(ex[mask], minlength=self.n).astype(np.int64)
                for name, mask in (("tp", g & p), ("fp", ~g & p), ("fn", g & ~p),
                                   ("tn", ~g & ~p))}

    def any_positive(self) -> tuple[np.ndarray, np.ndarray]:
        """Per example: (a token is gold-positive, a token is predicted positive)."""
        gold = np.bincount(self.example[self.gold], minlength=self.n) > 0
        pred = np.bincount(self.example[self.pred], minlength=self.n) > 0
        return gold, pred


def label_tokens(n: int, refs: tuple[np.ndarray, np.ndarray, np.ndarray],
                 tokens: tuple[np.ndarray, np.ndarray, np.ndarray], scores: np.ndarray,
                 threshold: float, *, inclusive: bool = False) -> TokenLabels:
    """`TokenLabels` of ``tokens`` = (example, start, end) against the listed reference
    spans ``refs`` = (example, start, end), zero-length ones included on both sides.

    A token overlaps some span with ``s < b`` and ``e > a`` exactly when, among the spans
    of its example with ``s < b``, the largest ``e`` exceeds ``a``: one sort of the spans
    by start and one ``searchsorted`` per token, whatever the lengths. The keys of
    `mycelium.metrics.intervals.order_keys` order every example after the previous
    one, so a running maximum over the whole batch never lets an earlier example's span
    reach a later example's token.
    """
    rx, rs, re_ = refs
    tx, ta, tb = tokens
    ks, ke, ka, kb = iv.order_keys([rx, rx, tx, tx], [rs, re_, ta, tb], max(n, 1))
    order = np.argsort(ks, kind="stable")
    ks_sorted = ks[order]
    reach = iv.running_max(ke[order]) if order.size else ke
    before = np.searchsorted(ks_sorted, kb, side="left")  # spans with s < b
    gold = np.zeros(tx.size, dtype=bool)
    has = before > 0
    gold[has] = reach[before[has] - 1] > ka[has]
    pred = scores >= threshold if inclusive else scores > threshold
    return TokenLabels(n, tx, gold, np.asarray(pred, dtype=bool))
