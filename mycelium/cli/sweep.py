"""``mycelium sweep``: read a file of detector scores and print span metrics at each threshold.

Reads like ``mycelium evaluate`` (REFS, optionally PREDS paired by position or
``--id-col``), scores with ``df.mycelium.sweep`` (`mycelium.scores.sweep`) and writes
the tidy curve with `mycelium.cli.output` (table, csv, json or parquet).
"""

from __future__ import annotations

import argparse

import pandas as pd

from ..core.profiles import PROFILES
from ..core.signature import signature_with
# `mycelium sweep` reads its files and writes its output as `mycelium evaluate` does, by
# the same helpers of cli/evaluate (one reader for every subcommand).
from .evaluate import (Source, column_of, float_rule, located_error, lookup_column,
                       output_format, pair_rows, score_columns, take_rows)
from ..errors import SpanValidationError
from .output import EXIT_OK, write_result
from .read import read_frame, recorded_rule

DESCRIPTION = """\
Span metrics of a detector's scores at many thresholds: the spans at
t are the characters (soft labels) or runs of tokens scoring > t. The scores are a
soft-label column (--soft-pred-col) or token offsets and scores (--token-offsets-col
with --token-scores-col); --text-col is required."""


def add_parser(commands, *, names, metric_names, thresholds) -> None:
    """The ``sweep`` subcommand (argument types shared with ``evaluate``)."""
    p = commands.add_parser("sweep", help="span metrics of scores at many thresholds",
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            description=DESCRIPTION)
    p.add_argument("refs", metavar="REFS", help="file with the reference spans")
    p.add_argument("preds", metavar="PREDS", nargs="?",
                   help="file with the scores (default: REFS holds every column)")
    p.add_argument("--ref-col", required=True, help="column of reference spans (in REFS)")
    p.add_argument("--text-col", required=True, help="column of output texts")
    add_score_options(p)
    p.add_argument("--id-col", help="pair REFS and PREDS rows by this column")
    p.add_argument("--by", type=names, action="extend", default=[], metavar="COLUMNS",
                   help="comma-separated group columns")
    p.add_argument("--metrics", type=metric_names, metavar="NAMES",
                   help="comma-separated span metrics (default: iou,character)")
    p.add_argument("--thresholds", type=thresholds, metavar="N|T,T,...",
                   help="a number of quantiles, or comma-separated thresholds in [0, 1] "
                        "(default: every distinct score, the exact curve)")
    p.add_argument("--profile", choices=sorted(PROFILES), help="benchmark profile")
    p.add_argument("--average", choices=("macro", "micro"))
    p.add_argument("--format", choices=("table", "csv", "json", "parquet"))
    p.add_argument("-o", "--output", metavar="FILE")
    p.add_argument("--infer-types", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS)
    p.set_defaults(run=run_sweep, parser=p, ci=None, soft_ref_col=None,
                   granularity="char", pred_col=None, threshold=None, metrics_default=("iou", "character"))


def add_score_options(p) -> None:
    """--token-offsets-col / --token-scores-col (and --soft-pred-col when absent)."""
    if not any("--soft-pred-col" in a.option_strings for a in p._actions):
        p.add_argument("--soft-pred-col", metavar="COLUMN",
                       help="column of soft labels, lists of {start, end, prob} (in PREDS, "
                            "else in REFS)")
    p.add_argument("--token-offsets-col", metavar="COLUMN",
                   help="column of token offsets, lists of [start, end] (code points; in "
                        "PREDS, else in REFS)")
    p.add_argument("--token-scores-col", metavar="COLUMN",
                   help="column of token scores, one number in [0, 1] per token (in "
                        "PREDS, else in REFS)")


def run_sweep(args: argparse.Namespace) -> int:
    """``mycelium sweep``: read, pair, ``df.mycelium.sweep``, write."""
    if args.soft_pred_col is None and args.token_offsets_col is None:
        args.parser.error("give the scores: --soft-pred-col, or --token-offsets-col with "
                          "--token-scores-col")
    fmt = output_format(args, args.parser)
    rule = float_rule(args)  # the profile's reading of the files' numbers
    refs = Source("REFS", args.refs, read_frame(args.refs, infer_types=args.infer_types,
                                                 float_parse=rule))
    preds = refs if args.preds is None else Source(
        "PREDS", args.preds, read_frame(args.preds, infer_types=args.infer_types,
                                        float_parse=rule))
    order = pair_rows(refs, preds, args.id_col)
    cols = {name: lookup_column(name, "--by", refs, preds, order) for name in args.by}
    cols["__ref__"] = take_rows(column_of(refs.frame, args.ref_col, "--ref-col", refs), None)
    cols["__text__"] = lookup_column(args.text_col, "--text-col", refs, preds, order)
    scores = score_columns(refs, preds, order, args)
    keys = {"--soft-pred-col": "__soft__", "--token-offsets-col": "__offsets__",
            "--token-scores-col": "__scores__"}
    for option, series in scores.items():
        cols[keys[option]] = series
    frame = pd.DataFrame(cols)
    try:
        result = _sweep(frame, scores, args)
    except SpanValidationError as exc:
        raise located_error(exc, refs, preds, order, args) from exc
    applied = recorded_rule(args, [args.refs, args.preds])
    if applied is not None:  # the numbers read from JSON by the rule: say so
        result.attrs["signature"] = signature_with(result.attrs.get("signature"),
                                                   float_parse=applied)
        if "signature" in result.columns:
            result["signature"] = result["signature"].map(
                lambda s: signature_with(s, float_parse=applied) if isinstance(s, str) else s)
    result.attrs["mycelium_signature"] = result.attrs.get("signature")
    write_result(result, fmt, args.output, by=list(args.by) + ["threshold"])
    return EXIT_OK


def _sweep(frame: pd.DataFrame, scores, args):
    return frame.mycelium.sweep(
        "__ref__", text="__text__",
        soft_pred_col="__soft__" if "--soft-pred-col" in scores else None,
        token_offsets_col="__offsets__" if "--token-offsets-col" in scores else None,
        token_scores_col="__scores__" if "--token-scores-col" in scores else None,
        by=args.by or None, thresholds=args.thresholds,
        metrics=args.metrics or list(args.metrics_default), profile=args.profile,
        average=args.average)


def parse_thresholds(value: str):
    """``N`` (quantiles) or ``T,T,...`` (thresholds)."""
    text = value.strip()
    if text.isdigit():
        if int(text) < 1:  # "0" reads as no quantiles; the threshold 0 is written 0.0
            raise argparse.ArgumentTypeError(
                f"Expected a number of quantiles >= 1 or thresholds in [0, 1], got "
                f"{value!r}, at --thresholds; fix by writing --thresholds 0.0 for the single "
                "threshold 0, or a count such as --thresholds 100 for 100 quantiles")
        return int(text)
    try:
        out = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number of quantiles or comma-separated thresholds, got {value!r}"
        ) from None
    if not out or not all(0.0 <= t <= 1.0 for t in out):
        raise argparse.ArgumentTypeError(f"expected thresholds in [0, 1], got {value!r}")
    return out
