"""``mycelium rank``: where a submission would have placed on a published leaderboard.

Scores PRED under the benchmark's official protocol and prints the published table
with the submission inserted (`mycelium.protocols.rank`).
"""

from __future__ import annotations

import argparse
import json

from ..datasets import round_printed
from ..io.float_parse import FLOAT_PARSES
from ..protocols.rank import RESAMPLES, RankResult, rank_faithbench, rank_mushroom

DESCRIPTION = """\
Score a test submission under the benchmark's official protocol and place it on the
published leaderboard (bundled with mycelium, with its source).

rank = 1 + the number of ranked published rows whose value is strictly greater than
the submission's value rounded to that row's printed precision; baselines are shown,
not ranked. The interval is a bootstrap over the test items of the submission's rank
(the published rows are fixed numbers).

mu_shroom: PRED is a test submission in the official jsonl format, for --lang; the
reference is the registered labelled test set ('mycelium data add mu_shroom PATH'),
or --reference FILE; --by iou (default) or cor.

faithbench: PRED holds response-level predictions (.jsonl or .csv: batch, sample_id
and prediction, 1 = consistent / 0 = hallucinated, or score in [0, 1]); the gold is
the paper's rule on the registered copy ('mycelium data add faithbench PATH'), or
--reference FOLDER; --by balanced_accuracy (default) or f1_macro; --pooling worst
(the paper's main table) or best."""

LABELS = {"iou": "IoU", "cor": "Cor", "balanced_accuracy": "BAcc", "f1_macro": "F1-macro"}
DEFAULT_BY = {"mu_shroom": "iou", "faithbench": "balanced_accuracy"}


def add_parser(commands) -> None:
    p = commands.add_parser("rank", help="place a submission on a published leaderboard",
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            description=DESCRIPTION)
    p.add_argument("pred", metavar="PRED", help="the submission (official jsonl format)")
    p.add_argument("--benchmark", choices=tuple(DEFAULT_BY), default="mu_shroom")
    p.add_argument("--lang", help="mu_shroom: the submission's language, e.g. en")
    p.add_argument("--by", choices=tuple(LABELS),
                   help="the leaderboard's metric (default: iou for mu_shroom, "
                        "balanced_accuracy for faithbench)")
    p.add_argument("--pooling", choices=("worst", "best"), default="worst",
                   help="faithbench: the label pooling of the table (default worst)")
    p.add_argument("--reference", metavar="REF",
                   help="the labelled test file, or a data name (default: "
                        "mu_shroom:test:LANG from the cache)")
    p.add_argument("--ci", type=float, default=0.95, help="interval level (default 0.95)")
    p.add_argument("--n-resamples", type=int, default=RESAMPLES, metavar="N",
                   help=f"bootstrap resamples (default {RESAMPLES})")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--float-parse", dest="float_parse", choices=FLOAT_PARSES[::-1],
                   default="pandas-fast", help="as in 'mycelium mushroom'")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help="on an error, print the full traceback")
    p.set_defaults(run=run_rank, parser=p)


def run_rank(args: argparse.Namespace) -> int:
    if not 0 < args.ci < 1:
        args.parser.error(f"--ci must be in (0, 1), got {args.ci}")
    by = args.by or DEFAULT_BY[args.benchmark]
    if args.benchmark == "mu_shroom":
        if not args.lang:
            args.parser.error("--lang is required with --benchmark mu_shroom")
        if by not in ("iou", "cor"):
            args.parser.error(f"--by {by} is not a Mu-SHROOM leaderboard (iou, cor)")
        result = rank_mushroom(args.pred, args.lang, by=by, reference=args.reference,
                               ci=args.ci, n_resamples=args.n_resamples, seed=args.seed,
                               float_parse=args.float_parse)
    else:
        if by not in ("balanced_accuracy", "f1_macro"):
            args.parser.error(f"--by {by} is not a FaithBench table (balanced_accuracy, "
                              "f1_macro)")
        result = rank_faithbench(args.pred, by=by, pooling=args.pooling,
                                 reference=args.reference, ci=args.ci,
                                 n_resamples=args.n_resamples, seed=args.seed)
    if args.format == "json":
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        print(table(result, by, args.ci))
    return 0


def table(result: RankResult, metric: str, ci: float) -> str:
    """The published table with the submission's row inserted (marked ``>>``)."""
    label = LABELS[metric]
    lines = [f"{'':2} {'rank':>4}  {'team':<28} {label:>10}"]
    scale = float(result.rows[0].precision.get("scale", 1)) if result.rows else 1.0
    mine = f">> {result.rank:>4}  {'(your submission)':<28} {result.value * scale:>10.6g}"
    placed = False
    ranked = [r for r in result.rows if not r.baseline]
    # in the table's order of values (FaithBench's table is printed by detector)
    for row in sorted(result.rows, key=lambda r: -float(r.printed)):
        if not placed and not row.baseline \
                and not float(row.printed) > round_printed(result.value, row.precision):
            lines.append(mine)
            placed = True
        if row.baseline:
            rank = ""
        elif row.published_rank is not None:
            rank = str(row.published_rank)
        else:  # the source prints no rank: the rule's rank of the row's own value
            rank = str(1 + sum(float(r.printed) > float(row.printed) for r in ranked))
        lines.append(f"{'':2} {rank:>4}  {row.team:<28} {row.printed:>10}")
    if not placed:
        lines.append(mine)
    lo, hi = result.interval
    lines.append("")
    lines.append(f"rank {result.rank} of {result.of} by {label} ({result.value:.8f}); "
                 f"{ci:.0%} bootstrap interval of the rank over items: {lo}-{hi}")
    if result.above is not None:
        lines.append(f"just above: {result.above.team} ({result.above.printed})")
    if result.below is not None:
        lines.append(f"just below: {result.below.team} ({result.below.printed})")
    lines.append(f"source: {result.rows[0].source if result.rows else '-'}")
    lines.append(f"signature: {result.signature}")
    return "\n".join(lines)
