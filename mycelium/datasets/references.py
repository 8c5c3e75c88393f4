"""Published reference results: `leaderboard`, the rows `mycelium rank` ranks against.

``references.json`` beside this module holds published tables as facts with their
sources (built by ``validation/build_datasets.py`` from copies of the published files):
the Mu-SHROOM test leaderboards (IoU and Cor, 14 languages; Helsinki-NLP/shroom
``2025/iou_rankings.md`` and ``cor_rankings.md``) and the SHROOM-Visions final
leaderboard (``2026.md``; Cor+Lbl, Cor and IoU, 4 languages) and FaithBench's detector
table (21 detector configurations, balanced accuracy and macro F1 x100, worst and best
pooling, as forrestbao/FaithBench@0497b6d ``eval/eval_detectors.ipynb`` prints them;
splits ``paper_worst`` and ``paper_best``). Each row keeps the value
exactly as printed, the printed precision, its published rank, whether it is a baseline,
the source, and the convention (the protocol that computes it).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = ["ReferenceRow", "leaderboard", "reference_tables", "round_printed"]


@dataclass(frozen=True)
class ReferenceRow:
    """One published row.

    Attributes
    ----------
    team : str
        As printed (baselines without the table's italics markers).
    value : float
        The printed number in the metric's own units (``float(printed)``, divided by
        the precision's ``scale`` where the source prints x100).
    printed : str
        The number exactly as the source prints it.
    precision : dict
        ``{"significant": n}`` or ``{"decimals": n}``, with ``"scale": 100`` where the
        source prints percentages: how the source rounds.
    published_rank : int or None
        The rank the source prints (None for unranked baselines).
    baseline : bool
        An organisers' baseline: shown, not ranked, by `mycelium rank`.
    benchmark, split, lang, metric, source, convention : str
        Where the row is from and how its number was computed.
    signature : str or None
        The mycelium signature fields that reproduce the convention, where stated.
    detector : str or None
        FaithBench: the detector's key in `mycelium.protocols.faithbench.DETECTORS` when
        the data carries its predictions.
    """

    team: str
    value: float
    printed: str
    precision: dict
    published_rank: int | None
    baseline: bool
    benchmark: str
    split: str
    lang: str
    metric: str
    source: str
    convention: str
    signature: str | None
    detector: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@lru_cache(maxsize=1)
def reference_tables() -> tuple[dict, ...]:
    """Every published table of ``references.json`` (its rows as stored)."""
    text = resources.files(__package__).joinpath("references.json").read_text(
        encoding="utf-8")
    return tuple(json.loads(text)["tables"])


def leaderboard(benchmark: str, lang: str, metric: str, *,
                split: str = "test") -> list[ReferenceRow]:
    """The published rows of one leaderboard, in the source's order.

    Parameters
    ----------
    benchmark : str
        ``"mu_shroom"`` or ``"shroom_visions"``.
    lang : str
        A language code, e.g. ``"en"``.
    metric : str
        ``"iou"`` or ``"cor"`` (and ``"cor_lbl"`` for SHROOM-Visions).

    Raises
    ------
    KeyError
        No such table; the message lists the tables there are.

    Examples
    --------
    >>> rows = leaderboard("mu_shroom", "en", "iou")
    >>> [(r.team, r.printed, r.published_rank) for r in rows[:2]]
    [('iai_MSU', '0.650899', 1), ('UCSC', '0.614601', 2)]
    >>> [r.team for r in rows if r.baseline]
    ['Baseline (mark all)', 'Baseline (mark none)', 'Baseline (neural)']
    """
    lang = lang.lower()
    for table in reference_tables():
        if (table["benchmark"], table["lang"], table["metric"], table["split"]) == \
                (benchmark, lang, metric, split):
            shared = {k: v for k, v in table.items() if k != "rows"}
            scale = float(table["precision"].get("scale", 1))
            return [ReferenceRow(value=float(row["printed"]) / scale, **row, **shared)
                    for row in table["rows"]]
    known = sorted({(t["benchmark"], t["metric"]) for t in reference_tables()})
    langs = sorted({t["lang"] for t in reference_tables() if t["benchmark"] == benchmark})
    raise KeyError(f"Expected a published table in {known} with a language in {langs}, got "
                   f"benchmark={benchmark!r} lang={lang!r} metric={metric!r}; fix by naming "
                   "one of them.")


def round_printed(value: float, precision: dict) -> float:
    """The number a source with ``precision`` prints for ``value``, in its printed units.

    ``{"significant": 6}`` is ``%.6g`` (pandas' ``to_markdown`` of the Mu-SHROOM
    leaderboards), ``{"decimals": 4}`` is ``%.4f``; with ``"scale": 100`` the value is
    printed as a percentage (x100). Comparing it with ``float(row.printed)`` compares two
    printed numbers exactly.

    Examples
    --------
    >>> round_printed(0.6513471234, {"significant": 6})
    0.651347
    >>> round_printed(0.04666666, {"significant": 6})
    0.0466667
    >>> round_printed(0.15494, {"decimals": 4})
    0.1549
    >>> round_printed(0.48703, {"decimals": 2, "scale": 100})
    48.7
    """
    if math.isnan(value):
        return value
    scaled = value * float(precision.get("scale", 1))
    if "significant" in precision:
        return float(f"{scaled:.{int(precision['significant'])}g}")
    return float(f"{scaled:.{int(precision['decimals'])}f}")
