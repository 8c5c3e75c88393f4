"""Benchmark profiles: frozen, versioned bundles of scoring settings (``mu_shroom``,
``ragtruth``, ``psiloqa``, ``fava``, ``lettucedetect``, ``shroom_visions``).

A profile fixes how a benchmark reads span scores: its aggregation, its value for
undefined precision/recall, its default metrics and metric parameters. Explicit
arguments to `mycelium.evaluate` always win over the profile's values. Changing what a
built-in profile means requires a new ``version``; the name and version go into every
result's signature.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from ..errors import closest_name
from ..metrics import POOLED_METRICS, resolve_metrics, resolve_params, unknown_name
from .aggregate import zero_division_name
from .score_rules import ScoreRules, score_rules
from .types import AVERAGES, Average, ZeroDivision

__all__ = ["Profile", "PROFILES", "FLOAT_PARSES", "get_profile"]

_RESERVED = set("|:,@=")

#: How a benchmark's files turn JSON numbers into floats (`mycelium.io.float_parse`):
#: ``"exact"``, correctly rounded (Python's `json`, ``pyarrow.json``); ``"pandas-fast"``,
#: as ``pandas.read_json`` with its default ``precise_float=False`` reads them, which the
#: official Mu-SHROOM scorer does.
FLOAT_PARSES = ("exact", "pandas-fast")


@dataclass(frozen=True)
class Profile:
    """A named, versioned set of scoring settings.

    Parameters
    ----------
    name : str
        Identifier written into signatures (no ``| : , @ =`` characters).
    version : int
        Bumped whenever the profile's meaning changes.
    average : {"macro", "micro"}
        Aggregation used when `evaluate` gets no explicit ``average``.
    zero_division : {0.0, 1.0, "nan"}
        Value of an undefined precision or recall unless `evaluate` gets one.
    metrics : tuple of str, optional
        Default metrics (None: every metric that applies).
    params : mapping, optional
        Metric parameters, e.g. ``{"deteval_1d": {"merge_credit": 1.0}}``.
    description : str
        One line saying what the profile reproduces.
    score_rules : mapping, optional
        How detector scores are read (`mycelium.core.score_rules.ScoreRules`:
        ``threshold_rule``, ``token_overlap``, ``char_ap_undefined``); empty means
        SPEC section 9's defaults. Rules that differ from them, and every rule the
        profile names, go into the signature.
    extra_metrics : tuple of str, optional
        Metrics always pooled over the examples (``response_level``) that
        `mycelium.evaluate` reports beside the span metrics when it gets no explicit
        ``metrics``. The frame faces compute them when ``metrics=`` names them.
    float_parse : {"exact", "pandas-fast"}, default "exact"
        How the benchmark's files turn JSON numbers into floats (`FLOAT_PARSES`); the
        readers of its files (`mycelium.read_mushroom`,
        `mycelium.protocols.mushroom.score_files`, ``mycelium mushroom``) follow it
        unless told otherwise. A value other than ``"exact"`` goes into the signature
        (``float_parse:pandas-fast``).

    Raises
    ------
    ValueError
        A name with a reserved character, a version below 1, or an invalid average,
        zero_division, metric or parameter.

    Examples
    --------
    >>> strict = Profile("strict_micro", version=1, average="micro", zero_division="nan")
    >>> strict.average, strict.zero_division
    ('micro', 'nan')
    """

    name: str
    version: int = 1
    average: Average = "macro"
    zero_division: ZeroDivision = 0.0
    metrics: tuple[str, ...] | None = None
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    description: str = ""
    score_rules: Mapping[str, Any] = field(default_factory=dict)
    extra_metrics: tuple[str, ...] = ()
    float_parse: str = "exact"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name or _RESERVED & set(self.name):
            raise ValueError(f"Profile name {self.name!r} must be a non-empty str without "
                             "any of the characters | : , @ =")
        if isinstance(self.version, bool) or not isinstance(self.version, int) \
                or self.version < 1:
            raise ValueError(f"Profile version {self.version!r} must be a positive int.")
        if self.average not in AVERAGES:
            raise ValueError(f"Profile average {self.average!r}; expected 'macro' or 'micro'.")
        zd = zero_division_name(self.zero_division)
        object.__setattr__(self, "zero_division", zd)
        if self.metrics is not None:
            object.__setattr__(self, "metrics", resolve_metrics(self.metrics, soft=True))
        extra = (self.extra_metrics,) if isinstance(self.extra_metrics, str) \
            else tuple(self.extra_metrics)
        for name in extra:
            if name not in POOLED_METRICS:
                raise unknown_name("extra metric", name, POOLED_METRICS)
        object.__setattr__(self, "extra_metrics", tuple(dict.fromkeys(extra)))
        resolve_params(self.params)  # validates names and values
        frozen = {m: MappingProxyType(dict(v)) for m, v in dict(self.params).items()}
        object.__setattr__(self, "params", MappingProxyType(frozen))
        # Validates; keeps the rules that differ from the defaults and every rule the
        # profile names (a profile may state a default rule to make it explicit).
        given = dict(self.score_rules) if isinstance(self.score_rules, Mapping) else {}
        checked = score_rules(self.score_rules)
        rules = {**checked.fields(), **{k: getattr(checked, k) for k in given}}
        if not isinstance(self.float_parse, str) or self.float_parse not in FLOAT_PARSES:
            raise ValueError(f"Profile float_parse {self.float_parse!r}; expected one of "
                             f"{', '.join(map(repr, FLOAT_PARSES))}.")
        object.__setattr__(self, "score_rules", MappingProxyType(rules))

    @property
    def rules(self) -> ScoreRules:
        """The profile's `ScoreRules`."""
        return score_rules(self.score_rules)

    @property
    def tag(self) -> str:
        """``name@version`` as written in signatures."""
        return f"{self.name}@{self.version}"


#: ``mu_shroom@2`` reads the files' probabilities as the official scorer does
#: (``float_parse="pandas-fast"``: ``pandas.read_json``'s fast parser, which the published
#: leaderboard's numbers depend on); its scoring is that of ``mu_shroom@1``.
#: ``ragtruth@2`` adds the response (case) level of RAGTruth's evaluator to the default
#: report, counted as the evaluator counts it (``response_level.positive_min_length`` 0);
#: its character level is that of ``ragtruth@1``.
PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        # Quirk of the official Mu-SHROOM scorer (participant_kit/scorer.py reads with
        # pandas.read_json, precise_float=False): near-equal 16-17 digit probabilities
        # read as one double, which changes Spearman's ties (NCL-UoR's Catalan test
        # submission: Cor 0.72028324 as published, 0.70963488 read exactly).
        Profile("mu_shroom", 2, "macro", 0.0, float_parse="pandas-fast",
                description="SemEval-2025 Task 3 (Mu-SHROOM): per-example IoU averaged "
                            "over examples, as the official participant-kit scorer, "
                            "probabilities read as its pandas reader reads them"),
        Profile("ragtruth", 2, "micro", 0.0,
                params={"response_level": {"positive_min_length": 0}},
                description="RAGTruth span level: merged character masks per response, "
                            "TP/FP/FN summed over the batch, undefined values 0.0; and "
                            "its response (case) level: a response is positive when its "
                            "span list is non-empty",
                extra_metrics=("response_level",)),
        # Quirks of PsiloQA's published evaluator (s-nlp/PsiloQA @ 95233ae,
        # psilo/methods/uncertainty/evaluation.py), each a score rule: characters with
        # score >= t are predicted; token values overwrite characters in token order;
        # an example without a hallucinated character has AP 0.0 and counts in the mean.
        # Its threshold grid is tune_threshold(thresholds={"steps": 2000}); its whole
        # protocol (per-language tuning on validation) is mycelium.score_psiloqa.
        Profile("psiloqa", 1, "macro", 0.0, metrics=("iou",),
                score_rules={"threshold_rule": ">=", "token_overlap": "last",
                             "char_ap_undefined": 0.0},
                description="PsiloQA: per-example IoU and character AP averaged over "
                            "examples, scores >= threshold, last-writer token values, "
                            "AP 0.0 without a hallucinated character"),
        Profile("fava", 1, "macro", "nan",
                description="FAVA fine-grained detection: per error type, sentence-level "
                            "precision and recall of the sentences aligned by index "
                            "(mycelium.score_fava)"),
    )
}


#: LettuceDetect's evaluator (KRLabsOrg/LettuceDetect@102f7f29009aeca4365a9d9731e46f13bab099b6,
#: lettucedetect/models/evaluator.py), each of its rules named:
#: - character level (``evaluate_detector_char_level``): span lengths and pairwise
#:   overlaps summed without merging, every listed span counted (``character.overlaps``);
#: - example level: with token scores, a response is positive when one of its tokens is
#:   (``evaluate_model_example_level``: ``response_level.unit``); with spans, when its
#:   span list is non-empty, zero-length spans included (``evaluate_detector_example_level``:
#:   ``response_level.positive_min_length``);
#: - token level (``evaluate_model``): tokens as items, a token gold-positive when it
#:   overlaps a listed reference span (``token_level``, with token scores at a threshold);
#: - spans from token predictions (``TransformerDetector._predict_single``): a token is
#:   positive when its probability is ``> t`` (argmax of two classes: ``> 0.5``) and each
#:   run of positive tokens, zero-length tokens skipped, is one span from its first
#:   token's start to its last token's end (``threshold_rule``, ``token_overlap``).
#: Micro over the batch, undefined values 0.0 (``zero_division=0`` in its scikit-learn
#: calls, and ``0`` in its own divisions).
LETTUCEDETECT = Profile(
    "lettucedetect", 1, "micro", 0.0, metrics=("character",),
    params={"character": {"overlaps": "pairwise"},
            "response_level": {"positive_min_length": 0, "unit": "tokens"}},
    score_rules={"threshold_rule": ">", "token_overlap": "max"},
    extra_metrics=("response_level", "token_level"),
    description="LettuceDetect's evaluator: character P/R/F1 from summed span lengths and "
                "pairwise overlaps (no merging), example level (any positive token, or a "
                "non-empty span list), token level over tokens, token runs as spans; "
                "micro, undefined values 0.0")
PROFILES[LETTUCEDETECT.name] = LETTUCEDETECT


#: SHROOM-Visions 2026, as its participant kit's ``scorer.py`` scores it (the organisers'
#: file, vendored unchanged in sckwokyboom/Vision-Hallucination-Detector @ 0db49dc,
#: ``scripts/official/official_scorer.py``; SPEC section 10.1), each rule named:
#: - the span lists are the soft labels: ``{start, end, prob, label}`` per span, on both
#:   sides (``soft_labels``);
#: - Cor (``soft_spearman``): the reference vector adds overlapping spans' probabilities
#:   (``soft_reference_overlap``, scorer.py 62-64), the predicted one is overwritten in
#:   list order (``soft_prediction_overlap``, 65-67), under the kit's constant rule on
#:   values rounded to 8 dp (``soft_constant``, 69-76), Spearman on the unrounded values;
#: - Cor lbl (``soft_spearman_by_label``): the mean over the union of both sides' labels
#:   (compared exactly) of Cor restricted to each, 1.0 for an empty union (81-98);
#: - IoU (``iou``) of every span's characters, probability 0 included (101-117);
#: - the files' numbers read by pandas' fast parser (``float_parse``, 20-37).
#: The kit's checks of a file (exact JSON types, the closed label set, ids) are the
#: reader's (`mycelium.read_shroom_visions`) and the drop-in's (``mycelium shroom-visions``).
SHROOM_VISIONS = Profile(
    "shroom_visions", 1, "macro", 0.0,
    metrics=("soft_spearman", "soft_spearman_by_label", "iou"), float_parse="pandas-fast",
    score_rules={"soft_labels": "spans", "soft_reference_overlap": "sum",
                 "soft_prediction_overlap": "last", "soft_constant": "shroom_visions"},
    description="SHROOM-Visions 2026: Cor (summed reference, last-writer prediction, the "
                "kit's constant rule), Cor lbl (Cor per label, averaged over the labels of "
                "each item) and IoU of every span, each averaged over the items, as the "
                "participant kit's scorer")
PROFILES[SHROOM_VISIONS.name] = SHROOM_VISIONS


def get_profile(profile: str | Profile | None) -> Profile | None:
    """Resolve ``None``, a built-in profile name or a `Profile`.

    Parameters
    ----------
    profile : {"mu_shroom", "ragtruth", "psiloqa", "fava", "lettucedetect", "shroom_visions"}, Profile or None
        A name from `PROFILES`, a custom `Profile` (returned as is), or None.

    Returns
    -------
    Profile or None

    Raises
    ------
    ValueError
        An unknown name (with a "did you mean").
    TypeError
        Anything else.

    Examples
    --------
    >>> p = get_profile("ragtruth")
    >>> p.tag, p.average, p.zero_division
    ('ragtruth@2', 'micro', 0.0)
    >>> get_profile("mushroom")
    Traceback (most recent call last):
    ...
    ValueError: Unknown profile 'mushroom'. Did you mean 'mu_shroom'? Valid profiles: mu_shroom, ragtruth, psiloqa, fava, lettucedetect, shroom_visions.
    """
    if profile is None or isinstance(profile, Profile):
        return profile
    if isinstance(profile, str):
        if profile not in PROFILES:
            hint = procedure_hint(profile)
            if hint is not None:
                raise ValueError(f"Unknown profile {profile!r}. {hint} Valid profiles: "
                                 f"{', '.join(PROFILES)}.")
            raise unknown_name("profile", profile, PROFILES)
        return PROFILES[profile]
    raise TypeError(f"profile is a {type(profile).__name__}; expected None, a name "
                    f"({', '.join(PROFILES)}) or a mycelium.Profile.")


#: Benchmarks scored by a procedure of their own rather than a profile, and where.
PROCEDURES = {
    "faithbench": "FaithBench is scored at the response level, not by a profile: "
                  "mycelium.protocols.faithbench.detector_table, or "
                  "`mycelium rank PRED --benchmark faithbench`.",
}


def procedure_hint(name: object) -> str | None:
    """Where a benchmark that has no profile is scored, when ``name`` spells it (in any
    case or punctuation), else None.

    Examples
    --------
    >>> procedure_hint("FaithBench").split(",")[0]
    'FaithBench is scored at the response level'
    >>> procedure_hint("ragtruth") is None
    True
    """
    close = closest_name(name, [*PROFILES, *PROCEDURES])
    return PROCEDURES.get(close) if close is not None else None
