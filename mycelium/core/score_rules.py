"""`ScoreRules`: how detector scores become characters, spans and AP values (SPEC section 9).

SPEC section 9 fixes the defaults (a character or token is positive when its score is
``> t``; a character takes the highest score of the tokens covering it; a per-example AP
undefined for lack of a positive character is left out of the macro mean). Benchmarks
whose published evaluators read scores otherwise (PsiloQA: ``>=``, token values written
over the characters in token order, AP of 0.0 for an example without a hallucinated
character) name their rules in their `mycelium.Profile` (``score_rules=``); every rule
that differs from the default is written into the signature.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Mapping

__all__ = ["ScoreRules", "THRESHOLD_RULES", "TOKEN_OVERLAPS", "SOFT_LABELS", "SOFT_OVERLAPS",
           "SOFT_CONSTANTS", "SOFT_RULES", "score_rules", "rules_of"]

#: ``">"``: positive when score > t (SPEC default, Mu-SHROOM's ``prob > 0.5``);
#: ``">="``: score >= t (PsiloQA's evaluator).
THRESHOLD_RULES = (">", ">=")
#: ``"max"``: a character takes the highest score of the tokens covering it (SPEC
#: default); ``"last"``: token values are written over the characters in token order, the
#: last writer winning (PsiloQA's ``mask[start:end] = value``), and the spans at a
#: threshold are then the runs of positive characters, as for soft predictions.
TOKEN_OVERLAPS = ("max", "last")
#: Where soft labels come from: ``"given"``, the ``soft_references`` /
#: ``soft_predictions`` arguments (SPEC section 3); ``"spans"``, the span lists themselves
#: when neither is given (their spans carry a ``prob``, as SHROOM-Visions' ``labels``).
SOFT_LABELS = ("given", "spans")
#: How a side's overlapping soft spans make its per-character vector: ``"last"``, each
#: span overwrites its characters in list order (Mu-SHROOM's scorer); ``"sum"``, each
#: adds its probability (the SHROOM-Visions kit's reference vector).
SOFT_OVERLAPS = ("last", "sum")
#: The constant-vector rule of Cor (`mycelium.metrics.soft_runs.CONSTANT_RULES`).
SOFT_CONSTANTS = ("mu_shroom", "shroom_visions")


def _choice(name: str, value: object, valid: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in valid:
        raise ValueError(f"Expected {name} one of {', '.join(map(repr, valid))}, got "
                         f"{value!r}, at score_rules; fix by passing one of them.")


@dataclass(frozen=True)
class ScoreRules:
    """The rules that turn detector scores into character scores, spans and AP.

    Parameters
    ----------
    threshold_rule : {">", ">="}, default ">"
        A character (soft form) or token (token form) is positive at threshold t when
        its score is ``> t`` or ``>= t``.
    token_overlap : {"max", "last"}, default "max"
        How tokens that share characters score them (see `TOKEN_OVERLAPS`).
    soft_labels : {"given", "spans"}, default "given"
        Where the soft labels of ``soft_spearman`` come from (`SOFT_LABELS`).
    soft_reference_overlap, soft_prediction_overlap : {"last", "sum"}, default "last"
        How each side's overlapping soft spans make its vector (`SOFT_OVERLAPS`).
    soft_constant : {"mu_shroom", "shroom_visions"}, default "mu_shroom"
        The constant-vector rule of ``soft_spearman`` (`SOFT_CONSTANTS`).
    char_ap_undefined : float or None, default None
        The per-example ``char_ap`` of an example without a positive character: None
        leaves it out of the macro mean (SPEC default); a number in [0, 1] counts it
        with that value (0.0 is what scikit-learn's ``average_precision_score`` returns
        there, with a warning, so an evaluator that averages its per-example calls
        counts such examples as 0).

    Examples
    --------
    >>> ScoreRules(threshold_rule=">=").fields()
    {'threshold_rule': '>='}
    """

    threshold_rule: str = ">"
    token_overlap: str = "max"
    char_ap_undefined: float | None = None
    soft_labels: str = "given"
    soft_reference_overlap: str = "last"
    soft_prediction_overlap: str = "last"
    soft_constant: str = "mu_shroom"

    def __post_init__(self) -> None:
        _choice("threshold_rule", self.threshold_rule, THRESHOLD_RULES)
        _choice("token_overlap", self.token_overlap, TOKEN_OVERLAPS)
        _choice("soft_labels", self.soft_labels, SOFT_LABELS)
        _choice("soft_reference_overlap", self.soft_reference_overlap, SOFT_OVERLAPS)
        _choice("soft_prediction_overlap", self.soft_prediction_overlap, SOFT_OVERLAPS)
        _choice("soft_constant", self.soft_constant, SOFT_CONSTANTS)
        v = self.char_ap_undefined
        if v is not None:
            if isinstance(v, bool) or not isinstance(v, (int, float)) \
                    or not math.isfinite(v) or not 0.0 <= v <= 1.0:
                raise ValueError(f"Expected char_ap_undefined None or a number in [0, 1], "
                                 f"got {v!r}, at score_rules; fix by passing e.g. 0.0.")
            object.__setattr__(self, "char_ap_undefined", float(v))

    @property
    def inclusive(self) -> bool:
        """True when a score equal to the threshold is positive."""
        return self.threshold_rule == ">="

    def fields(self) -> dict[str, Any]:
        """The rules that differ from SPEC's defaults (what signatures record)."""
        default = ScoreRules()
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) != getattr(default, f.name)}


DEFAULT = ScoreRules()
#: The rules of soft labels (``soft_spearman``), as signatures name them.
SOFT_RULES = ("soft_labels", "soft_reference_overlap", "soft_prediction_overlap",
              "soft_constant")


def rules_of(profile) -> ScoreRules:
    """The score rules of a `mycelium.Profile` (SPEC section 9's defaults for None)."""
    return DEFAULT if profile is None else profile.rules


def score_rules(value: ScoreRules | Mapping[str, Any] | None) -> ScoreRules:
    """A `ScoreRules` from None, a mapping of rule names, or a `ScoreRules`."""
    if value is None:
        return DEFAULT
    if isinstance(value, ScoreRules):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"Expected score_rules as a mapping such as "
                        f"{{'threshold_rule': '>='}}, got {type(value).__name__}; fix by "
                        "passing a dict.")
    valid = [f.name for f in fields(ScoreRules)]
    bad = [k for k in value if k not in valid]
    if bad:
        raise ValueError(f"Expected score rules among {', '.join(valid)}, got {bad[0]!r}, "
                         "at score_rules; fix by using one of those names.")
    return ScoreRules(**dict(value))
