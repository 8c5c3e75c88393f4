"""``mycelium rank``: where a submission would have placed on a published leaderboard.

Scores PRED under the benchmark's official protocol and prints the published table
with the submission inserted (`mycelium.protocols.rank`).
"""

from __future__ import annotations

import argparse
import json

from ..datasets import round_printed
from ..io.float_parse import FLOAT_PARSES
from ..protocols.rank import RESAMPLES, RankResult, rank_mushroom

DESCRIPTION = """\
Score a test submission under the benchmark's official protocol and place it on the
published leaderboard (bundled with mycelium, with its source).

rank = 1 + the number of ranked published rows whose value is strictly greater than
the submission's value rounded to that row's printed precision; baselines are shown,
not ranked. The interval is a bootstrap over the test items of the submission's rank
(the published rows are fixed numbers).

The reference is the registered copy of the labelled test set ('mycelium data add
mu_shroom PATH'), or --reference FILE."""


def add_parser(commands) -> None:
    p = commands.add_parser("rank", help="place a submission on a published leaderboard",
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            description=DESCRIPTION)
    p.add_argument("pred", metavar="PRED", help="the submission (official jsonl format)")
    p.add_argument("--benchmark", choices=("mu_shroom",), default="mu_shroom")
    p.add_argument("--lang", required=True, help="the submission's language, e.g. en")
    p.add_argument("--by", choices=("iou", "cor"), default="iou",
                   help="the leaderboard: IoU (default) or Cor")
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
    result = rank_mushroom(args.pred, args.lang, by=args.by, reference=args.reference,
                           ci=args.ci, n_resamples=args.n_resamples, seed=args.seed,
                           float_parse=args.float_parse)
    if args.format == "json":
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        print(table(result, args.by, args.ci))
    return 0


def table(result: RankResult, metric: str, ci: float) -> str:
    """The published table with the submission's row inserted (marked ``>>``)."""
    label = {"iou": "IoU", "cor": "Cor"}[metric]
    lines = [f"{'':2} {'rank':>4}  {'team':<28} {label:>10}"]
    mine = f">> {result.rank:>4}  {'(your submission)':<28} {result.value:>10.6g}"
    placed = False
    for row in result.rows:
        if not placed and not row.baseline \
                and not row.value > round_printed(result.value, row.precision):
            lines.append(mine)
            placed = True
        rank = "" if row.baseline else str(row.published_rank)
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
