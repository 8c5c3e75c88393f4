"""``mycelium report``: one self-contained HTML file of one or more detectors' results
(tables with intervals, figures, metric agreement, the worst examples in the span view).

REFS holds the references (and the texts); each PREDS file is one detector, named by its
file name, paired with REFS by ``--id-col`` or by position. With REFS alone, REFS holds
the prediction column too, one detector or several in long format (``--detector-col``).
"""

from __future__ import annotations

import argparse
import numbers
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..core.profiles import PROFILES
from ..report.document import (LARGE_RESAMPLES, MAX_VIEW_ROWS, RESAMPLES, ReportOptions,
                               build_report)
from ..errors import EmptySpanWarning, SpanValidationError
# `mycelium report` reads its files as `mycelium evaluate` does, by the same helpers of
# cli/evaluate (one reader for every subcommand, not a copy each).
from .evaluate import (Source, column_of, float_rule, located_error, pair_rows, span_cells,
                       take_rows)
from .output import EXIT_OK
from .read import read_frame, recorded_rule
from .args import names as _names

__all__ = ["add_parser", "run_report", "report_frame"]

DESCRIPTION = """\
Write one self-contained HTML report (inline CSS and SVG, no scripts, nothing fetched:
it opens from disk): the settings signature, per-group tables with bootstrap intervals,
each detector's measures per group, the metric-agreement heatmap and each detector's
worst examples drawn over their texts.

REFS holds the reference spans; each PREDS file is one detector (named by its file
name) paired with REFS by --id-col, else by position. Without PREDS, REFS holds the
prediction column too: one detector, or several with --detector-col (long format).
Above {max_rows:,} rows the example views are drawn from a seeded sample (the page
says so); tables and figures always use every row."""
EPILOG = """\
example:
  mycelium report examples/data/references.jsonl examples/data/predictions/*.jsonl \\
      --ref-col spans --pred-col spans --text-col text --id-col id --by lang \\
      -o report.html"""


#: Remedies of `SpanValidationError.fix` keys in this command's terms: ``report`` has no
#: ``--missing`` (a report shows every example it scores).
REMEDIES = {"missing": "writing [] in that cell for an example without spans, or removing "
                       "the row",
            "text": "giving the row a text in the --text-col column"}


def add_parser(commands) -> None:
    p = commands.add_parser("report", help="write a self-contained HTML report",
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            description=DESCRIPTION.format(max_rows=MAX_VIEW_ROWS),
                            epilog=EPILOG)
    p.add_argument("refs", metavar="REFS", help="file with the reference spans")
    p.add_argument("preds", metavar="PREDS", nargs="*",
                   help="one file per detector (default: REFS holds the predictions)")
    p.add_argument("--ref-col", required=True, help="column of reference spans (in REFS)")
    p.add_argument("--pred-col", required=True, help="column of predicted spans")
    p.add_argument("--text-col", help="column of output texts (in REFS, else PREDS); the "
                                      "example views need it")
    p.add_argument("--context-col", help="column of what each text answers (a question, a "
                                         "source passage, the model's input; in REFS, else "
                                         "PREDS), shown collapsed above each example")
    p.add_argument("--id-col", help="pair each PREDS file with REFS by this column (the "
                                    "examples are titled by it)")
    p.add_argument("--detector-col", help="without PREDS: the column naming each row's "
                                          "detector")
    p.add_argument("--by", type=_names, action="extend", default=[], metavar="COLUMNS",
                   help="comma-separated group columns (in REFS)")
    p.add_argument("--type-field", metavar="FIELD",
                   help="the span field holding a type (e.g. label_type): adds a per-type "
                        "section, per detector each type's measures, reference and "
                        "predicted spans and examples")
    p.add_argument("--typed-matching", action="store_true",
                   help="with --type-field: restrict the predictions to each type too "
                        "(they must carry the field), every measure per type")
    p.add_argument("--profile", choices=sorted(PROFILES), help="benchmark profile")
    p.add_argument("--offsets", choices=("half-open", "inclusive"), default="half-open",
                   help="how the files write span ends: half-open [start, end) (default) or "
                        "inclusive [start, end], read as [start, end + 1) everywhere in the "
                        "report (recorded in the signature)")
    p.add_argument("--ci", type=float, default=0.95, metavar="LEVEL",
                   help="bootstrap interval level (default 0.95; 0 for none)")
    p.add_argument("--n-resamples", "--resamples", type=int, metavar="N",
                   help=f"bootstrap resamples (default {RESAMPLES}; {LARGE_RESAMPLES} above "
                        f"{MAX_VIEW_ROWS:,} rows)")
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="seed of the resamples and of the example sample (default 0)")
    p.add_argument("--examples", type=int, default=3, metavar="N",
                   help="worst examples shown per detector and --by group (default 3)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar on standard error (default: only on a terminal)")
    p.add_argument("--title", default="mycelium report", help="the page's title")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="the HTML file to write")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help="on an error, print the full traceback")
    p.set_defaults(run=run_report, parser=p, remedies=REMEDIES)


def _detector_name(path: str) -> str:
    name = Path(path).name
    for suffix in (".gz", ".jsonl", ".ndjson", ".json", ".csv", ".parquet", ".pq"):
        name = name.removesuffix(suffix)
    return name


def _long_part(refs: Source, preds: Source, args, detector) -> pd.DataFrame:
    order = pair_rows(refs, preds, args.id_col)
    columns = {name: column_of(refs.frame, name, "--by", refs).reset_index(drop=True)
               for name in args.by}
    columns["__ref__"] = span_cells(refs, args.ref_col, "--ref-col", args)
    columns["__pred__"] = take_rows(span_cells(preds, args.pred_col, "--pred-col", args), order)
    if args.offsets == "inclusive":  # every part of the report reads them half-open
        columns["__ref__"] = half_open_cells(columns["__ref__"])
        columns["__pred__"] = half_open_cells(columns["__pred__"])
    for name, option, key in ((args.text_col, "--text-col", "__text__"),
                              (args.context_col, "--context-col", "__context__")):
        if name is not None:
            source = refs if name in refs.frame.columns else preds
            values = column_of(source.frame, name, option, source)
            columns[key] = take_rows(values, order) if source is preds else \
                values.reset_index(drop=True)
    if args.id_col is not None:
        columns["__example__"] = column_of(refs.frame, args.id_col, "--id-col",
                                         refs).reset_index(drop=True)
    elif preds is not refs:  # the REFS row (from 1, as errors count rows): the key
        columns["__example__"] = pd.Series(range(1, len(refs.frame) + 1))
    part = pd.DataFrame(columns)
    try:  # checked per file, so that a bad span is told by its file and row
        with warnings.catch_warnings():  # the report tells zero-length spans once
            warnings.simplefilter("ignore", EmptySpanWarning)
            part.mycelium.score("__ref__", "__pred__", metrics=["iou"],
                                text="__text__" if "__text__" in part else None)
    except SpanValidationError as exc:
        told = argparse.Namespace(**{**vars(args), "soft_ref_col": None, "soft_pred_col": None})
        raise located_error(exc, refs, preds, order, told) from exc
    part["__detector__"] = detector if detector is not None else \
        column_of(refs.frame, args.detector_col, "--detector-col", refs).astype(str).to_numpy()
    return part


def half_open_cells(cells: pd.Series) -> pd.Series:
    """Span cells written with inclusive ends, each ``[s, e]`` as ``[s, e + 1)``: an Arrow
    column of `mycelium.SPAN_TYPE` by its ``end`` child, cells as read (lists of pairs or
    of dicts, which keep their other fields such as a type) one by one. Anything else is
    left as it is, for the span checks to name.

    >>> import pandas as pd
    >>> half_open_cells(pd.Series([[[7, 7]], [{"start": 0, "end": 2, "label": "A"}], None])
    ...                 ).tolist()
    [[[7, 8]], [{'start': 0, 'end': 3, 'label': 'A'}], None]
    """
    if isinstance(cells.dtype, pd.ArrowDtype) and pa.types.is_list(cells.dtype.pyarrow_dtype):
        column = pa.array(cells.array)
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        spans = column.values
        ends = pc.add_checked(spans.field("end"), 1)
        fields = [ends if f.name == "end" else spans.field(f.name) for f in spans.type]
        struct = pa.StructArray.from_arrays(fields, fields=list(spans.type))
        return pd.Series(pd.arrays.ArrowExtensionArray(pa.ListArray.from_arrays(
            column.offsets, struct, mask=column.is_null())))

    def whole(e) -> bool:  # an integer offset (a bool is refused later, as it is)
        return isinstance(e, numbers.Integral) and not isinstance(e, (bool, np.bool_))

    def span(s):
        if isinstance(s, dict) and whole(s.get("end")):
            return {**s, "end": s["end"] + 1}
        if isinstance(s, (list, tuple, np.ndarray)) and len(s) == 2 and whole(s[1]):
            return [s[0], s[1] + 1]
        return s

    return pd.Series([[span(s) for s in cell] if isinstance(cell, (list, tuple, np.ndarray))
                      else cell for cell in cells.tolist()], dtype=object)


def report_frame(args) -> pd.DataFrame:
    """The long frame the report scores: one row per (example, detector)."""
    rule = float_rule(args)  # the profile's reading of the files' numbers
    refs = Source("REFS", args.refs, read_frame(args.refs, float_parse=rule))
    if not args.preds:
        name = None if args.detector_col else args.pred_col
        return _long_part(refs, refs, args, name)
    parts = [_long_part(refs, Source("PREDS", path, read_frame(path, float_parse=rule)),
                        args, _detector_name(path)) for path in args.preds]
    return pd.concat(parts, ignore_index=True)


def run_report(args: argparse.Namespace) -> int:
    if args.preds and args.detector_col:
        args.parser.error("--detector-col names detectors within REFS; with PREDS files "
                          "each file is a detector: give one or the other")
    if not 0 <= args.ci < 1:
        args.parser.error(f"--ci: expected a level in (0, 1), or 0 for none, got {args.ci}")
    if args.typed_matching and args.type_field is None:
        args.parser.error("--typed-matching needs --type-field (the span field holding the "
                          "type)")
    frame = report_frame(args)
    options = ReportOptions(title=args.title, ci=args.ci or None,
                            n_resamples=args.n_resamples, seed=args.seed,
                            examples=args.examples, profile=args.profile,
                            progress=args.progress, type_field=args.type_field,
                            typed_matching=args.typed_matching, offsets=args.offsets,
                            float_parse=recorded_rule(args, [args.refs, *(args.preds or [])]))
    html = build_report(frame, "__ref__", "__pred__", detector_col="__detector__",
                        text_col="__text__" if args.text_col else None,
                        by=args.by or None, options=options,
                        example_col="__example__" if "__example__" in frame else None,
                        example_name=args.id_col or "REFS row",
                        context_col="__context__" if args.context_col else None)
    Path(args.output).write_text(html, encoding="utf-8")
    return EXIT_OK
