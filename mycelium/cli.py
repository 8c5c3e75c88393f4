"""The ``mycelium`` command: score span columns of JSONL, CSV or Parquet files from a shell.

A thin face over the pandas accessor (`mycelium.pandas_ext`): files are read into a
frame, the span columns are scored with ``df.mycelium.evaluate`` and the tidy result is
printed as an aligned table or written as CSV, JSON or Parquet. Exit status: 0 on
success, 1 for bad data (one ``mycelium: error: ...`` line on stderr), 2 for bad usage.
"""

from __future__ import annotations

import argparse
import errno
import gzip
import io
import json
import math
import os
import sys
import traceback
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import pandas as pd
import pyarrow as pa

from . import __version__, cli_mushroom
from .errors import MyceliumError, SpanValidationError
from .io import read_parquet, write_parquet
from .metrics import METRICS, SOFT_METRICS, unknown_name
from .pandas_ext import SIGNATURE_ATTR
from .granularity import GRANULARITIES
from .profiles import PROFILES

__all__ = ["main", "build_parser", "read_frame"]

EXIT_OK, EXIT_DATA, EXIT_USAGE = 0, 1, 2
#: Everything a bad input file or bad data can raise: reported in one line, exit 1.
DATA_ERRORS = (MyceliumError, KeyError, ValueError, TypeError, OSError, pa.ArrowException)
FORMATS = ("table", "csv", "json", "parquet")
READERS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl", ".csv": "csv",
           ".parquet": "parquet", ".pq": "parquet"}
MEASURES = ("precision", "recall", "f1", "score")  # column order of the table format
NULL = "<null>"


# ------------------------------------------------------------------------- parser

EVALUATE_DESCRIPTION = """\
Score the span columns of a file (REFS alone) or of two files (REFS and PREDS,
paired by --id-col or by position), overall or per group.

Files are read by extension: .jsonl, .ndjson, .json (one JSON object per line),
.csv (span cells as JSON strings), .parquet; .jsonl.gz and .csv.gz are read
compressed; '-' reads JSON lines from standard input."""
EVALUATE_EPILOG = """\
exit status: 0 on success, 1 for bad data (one 'mycelium: error: ...' line on
stderr), 2 for bad usage.

example:
  mycelium evaluate detections.jsonl --ref-col ref_spans --pred-col pred_spans \\
      --text-col text --by detector,lang --profile ragtruth"""


def build_parser() -> argparse.ArgumentParser:
    """The ``mycelium`` argument parser (one subparser per subcommand)."""
    parser = argparse.ArgumentParser(
        prog="mycelium",
        description="Score hallucination-span detectors under every benchmark convention.")
    parser.add_argument("--version", action="version", version=f"mycelium {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="on an error, print the full traceback")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_evaluate(commands)
    cli_mushroom.add_parser(commands)
    return parser


def _add_evaluate(commands) -> None:
    p = commands.add_parser(
        "evaluate", help="score span columns, overall or per group",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=EVALUATE_DESCRIPTION, epilog=EVALUATE_EPILOG)
    p.add_argument("refs", metavar="REFS", help="file with the reference spans")
    p.add_argument("preds", metavar="PREDS", nargs="?",
                   help="file with the predicted spans (default: REFS holds both columns)")
    p.add_argument("--ref-col", required=True, help="column of reference spans (in REFS)")
    p.add_argument("--pred-col", required=True,
                   help="column of predicted spans (in PREDS, else in REFS)")
    p.add_argument("--text-col", help="column of output texts: spans must end within them "
                                      "(looked up in REFS, then PREDS)")
    p.add_argument("--id-col", help="pair REFS and PREDS rows by this column instead of "
                                    "by position; every id must occur once in each file "
                                    "(with --ci, the ids also key the resamples)")
    p.add_argument("--by", type=_names, action="extend", default=[], metavar="COLUMNS",
                   help="comma-separated group columns (REFS, then PREDS); null keys form "
                        "their own group")
    p.add_argument("--profile", choices=sorted(PROFILES), help="benchmark profile")
    p.add_argument("--metrics", type=_metric_names, metavar="NAMES",
                   help=f"comma-separated metrics (default: all): {', '.join(METRICS)}, "
                        f"and {', '.join(SOFT_METRICS)} with soft labels")
    p.add_argument("--average", choices=("macro", "micro"),
                   help="default: the profile's, else macro")
    p.add_argument("--zero-division", type=_zero_division, metavar="{0,1,nan}",
                   help="value of an undefined precision or recall (default: the "
                        "profile's, else 0)")
    p.add_argument("--params", type=_params, metavar="JSON",
                   help='metric parameters, e.g. \'{"deteval_1d": {"recall_threshold": 0.7}}\'')
    p.add_argument("--missing", choices=("error", "empty", "drop"), default="error",
                   help="a null span cell is an error (default), an example without spans, "
                        "or left out")
    p.add_argument("--granularity", choices=GRANULARITIES, default="char",
                   help="unit of scoring (needs --text-col): spans mark the words or "
                        "sentences they touch (default: char)")
    p.add_argument("--soft-ref-col", metavar="COLUMN",
                   help="column of reference soft labels, lists of {start, end, prob} (in "
                        "REFS); with --soft-pred-col adds soft_spearman (needs --text-col)")
    p.add_argument("--soft-pred-col", metavar="COLUMN",
                   help="column of predicted soft labels (in PREDS, else in REFS)")
    p.add_argument("--ci", type=_level, metavar="LEVEL",
                   help="add percentile-bootstrap intervals at this level, e.g. 0.95 "
                        "(columns ci_low, ci_high; resampled within each group, examples "
                        "keyed by --id-col when given, else by row position)")
    p.add_argument("--resamples", type=int, default=1000, metavar="N",
                   help="bootstrap resamples with --ci (default: 1000)")
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="bootstrap seed with --ci (default: 0; recorded in the signature)")
    p.add_argument("--format", choices=FORMATS,
                   help="output format (default: from the --output extension, else table)")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of standard output "
                                          "(required for parquet)")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help="on an error, print the full traceback")
    p.set_defaults(run=run_evaluate, parser=p)


def _names(value: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"expected comma-separated names, got {value!r}")
    return names


def _metric_names(value: str) -> list[str]:
    names = _names(value)
    valid = list(METRICS) + list(SOFT_METRICS)
    for name in names:
        if name not in valid:
            raise argparse.ArgumentTypeError(str(unknown_name("metric", name, valid)))
    return names


def _level(value: str) -> float:
    try:
        level = float(value)
    except ValueError:
        level = math.nan
    if not 0 < level < 1:
        raise argparse.ArgumentTypeError(f"expected a confidence level in (0, 1), e.g. "
                                         f"0.95, got {value!r}")
    return level


def _zero_division(value: str):
    if value.lower() == "nan":
        return "nan"
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if number not in (0.0, 1.0):
        raise argparse.ArgumentTypeError(f"expected 0, 1 or nan, got {value!r}")
    return number


def _params(value: str) -> dict:
    try:
        params = json.loads(value)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON ({exc.msg}): {value!r}") from None
    if not isinstance(params, dict):
        raise argparse.ArgumentTypeError(
            f"expected a JSON object {{metric: {{name: value}}}}, got {value!r}")
    return params


# ------------------------------------------------------------------- entry point

def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``mycelium`` command; return its exit status (0, 1 or 2).

    Examples
    --------
    >>> main(["--version"])
    mycelium 0.1.0
    0
    """
    parser = build_parser()
    args = None
    try:
        args = parser.parse_args(argv)
        return args.run(args)
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except BrokenPipeError:  # e.g. `mycelium evaluate ... | head`
        _silence_stdout()
        return EXIT_DATA
    except DATA_ERRORS as exc:
        if getattr(args, "debug", False):
            traceback.print_exc()
        print(f"mycelium: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_DATA


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, KeyError) and exc.args:
        message = str(exc.args[0])  # str(KeyError) would add quotes
    elif isinstance(exc, OSError) and exc.strerror and exc.filename:
        message = f"{exc.strerror}: {exc.filename}"
    else:
        message = str(exc) or type(exc).__name__
    return " ".join(line.strip() for line in message.splitlines() if line.strip())


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush cannot fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


# ---------------------------------------------------------------------- evaluate

@dataclass(frozen=True)
class Source:
    """A file read into a frame, and the name it is reported under (REFS or PREDS)."""

    role: str
    path: str
    frame: pd.DataFrame


def run_evaluate(args: argparse.Namespace) -> int:
    """``mycelium evaluate``: read, pair, score with ``df.mycelium.evaluate``, write."""
    fmt = _output_format(args, args.parser)
    refs = Source("REFS", args.refs, read_frame(args.refs))
    preds = refs if args.preds is None else Source("PREDS", args.preds,
                                                   read_frame(args.preds))
    order = _pairing(refs, preds, args.id_col)
    frame, names = _scoring_frame(refs, preds, order, args)
    try:
        result = frame.mycelium.evaluate(
            names["ref"], names["pred"], text=names.get("text"), by=args.by or None,
            profile=args.profile, metrics=args.metrics, average=args.average,
            zero_division=args.zero_division, params=args.params, missing=args.missing,
            soft_ref_col=names.get("soft_ref"), soft_pred_col=names.get("soft_pred"),
            granularity=args.granularity, ci=args.ci, n_resamples=args.resamples,
            seed=args.seed, id_col=names.get("id"))
    except SpanValidationError as exc:
        raise _located(exc, refs, preds, order, args) from exc
    write_result(result, fmt, args.output, by=args.by)
    return EXIT_OK


def _output_format(args: argparse.Namespace, parser: argparse.ArgumentParser) -> str:
    """The output format; usage errors the argument parser cannot see exit with 2."""
    if args.id_col is not None and args.preds is None and args.ci is None:
        parser.error("--id-col pairs REFS with PREDS rows; give a PREDS file as well "
                     "(or --ci, whose resamples it keys)")
    if args.refs == "-" and args.preds == "-":
        parser.error("standard input can be read once: give REFS or PREDS as a file")
    if (args.soft_ref_col is None) != (args.soft_pred_col is None):
        parser.error("--soft-ref-col and --soft-pred-col go together (soft_spearman "
                     "compares reference and predicted soft labels)")
    fmt = args.format
    if fmt is None:
        suffix = Path(args.output).suffix.lower() if args.output else ""
        fmt = {".csv": "csv", ".json": "json", ".parquet": "parquet"}.get(suffix, "table")
    if fmt == "parquet" and not args.output:
        parser.error("--format parquet writes a binary file: give it with --output FILE")
    return fmt


# ------------------------------------------------------------------------ reading

def read_frame(path: str) -> pd.DataFrame:
    """Read a JSON-lines, CSV or Parquet file (by extension; ``-`` = JSON lines on stdin)."""
    if path == "-":
        return _read_jsonl(sys.stdin, "<stdin>")
    p = Path(path)
    suffixes = [s.lower() for s in p.suffixes[-2:]]
    packed = bool(suffixes) and suffixes[-1] == ".gz"
    kind = READERS.get(suffixes[-2] if packed and len(suffixes) == 2 else
                       (suffixes[-1] if suffixes else ""))
    if kind is None or (packed and kind == "parquet"):
        raise ValueError(f"cannot tell the format of {path!r} from its extension; expected "
                         ".jsonl, .ndjson, .json, .csv (each optionally .gz), .parquet, or "
                         "'-' for JSON lines on standard input.")
    if not p.exists():
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    if kind == "parquet":
        return _read_parquet(p)
    opener = gzip.open if packed else open
    # utf-8-sig: files saved by spreadsheet programs start with a byte order mark.
    with opener(p, "rt", encoding="utf-8-sig", newline="" if kind == "csv" else None) as fh:
        return _read_jsonl(fh, path) if kind == "jsonl" else _read_csv(fh)


def _read_jsonl(fh, name: str) -> pd.DataFrame:
    records = []
    for lineno, line in enumerate(fh, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line.rstrip("\r\n"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{name}:{lineno}: not valid JSON ({exc.msg} at column "
                             f"{exc.colno}); expected one JSON object per line.") from None
        if not isinstance(record, dict):
            raise ValueError(f"{name}:{lineno}: expected a JSON object per line, got "
                             f"a {type(record).__name__}.")
        records.append(record)
    return pd.DataFrame.from_records(records)


def _read_csv(fh) -> pd.DataFrame:
    # Only empty cells are null: a language code such as "NA" must stay a string.
    return pd.read_csv(fh, keep_default_na=False, na_values=[""])


def _read_parquet(path: Path) -> pd.DataFrame:
    # Arrow-backed columns: span lists reach the core zero-copy, without a Python loop.
    return read_parquet(path, dtype_backend="pyarrow")


# ------------------------------------------------------------------------ pairing

def _pairing(refs: Source, preds: Source, id_col: str | None):
    """Positions of the PREDS rows in REFS order (None: the rows already correspond)."""
    if preds is refs:
        return None
    n_ref, n_pred = len(refs.frame), len(preds.frame)
    if id_col is None:
        if n_ref != n_pred:
            raise ValueError(f"REFS ({refs.path}) has {n_ref} rows but PREDS ({preds.path}) "
                             f"has {n_pred}; pass files with the same rows in the same order, "
                             "or pair them by an id column with --id-col.")
        return None
    ref_ids, pred_ids = _ids(refs, id_col), _ids(preds, id_col)
    positions = pred_ids.get_indexer(ref_ids)
    missing = ref_ids[positions < 0]
    extra = pred_ids[~pred_ids.isin(ref_ids)]
    if len(missing) or len(extra):
        raise ValueError(f"ids in column {id_col!r} do not match: "
                         f"{_id_mismatch(missing, extra, ref_ids, pred_ids)}; every REFS id "
                         "needs exactly one PREDS row and vice versa.")
    return positions


def _ids(source: Source, id_col: str) -> pd.Index:
    ids = pd.Index(_column(source.frame, id_col, "--id-col", source))
    if ids.hasnans:
        row = int(pd.isna(ids).argmax()) + 1
        raise ValueError(f"--id-col {id_col!r}: {source.role} ({source.path}) has no id in "
                         f"row {row}; every row needs one.")
    if not ids.is_unique:
        dup = ids[ids.duplicated()].unique()
        raise ValueError(f"--id-col {id_col!r}: {source.role} ({source.path}) has "
                         f"{len(dup)} duplicate id(s): {_some(dup)}; each id must occur "
                         "once.")
    return ids


def _id_mismatch(missing, extra, ref_ids, pred_ids) -> str:
    parts = []
    if len(missing):
        parts.append(f"{len(missing)} REFS id(s) missing from PREDS ({_some(missing)})")
    if len(extra):
        parts.append(f"{len(extra)} PREDS id(s) not in REFS ({_some(extra)})")
    text = " and ".join(parts)
    if len(missing) == len(ref_ids) and len(ref_ids) and len(pred_ids):
        a, b = _plain(ref_ids[0]), _plain(pred_ids[0])
        if type(a) is not type(b):  # 7 is not "7": ids are compared as given
            text += (f"; no id matched: REFS ids look like {a!r} ({type(a).__name__}), "
                     f"PREDS ids like {b!r} ({type(b).__name__})")
    return text


def _some(values, k: int = 3) -> str:
    shown = ", ".join(repr(_plain(v)) for v in list(values)[:k])
    return shown + (", ..." if len(values) > k else "")


def _plain(value):
    return value.item() if hasattr(value, "item") else value


# ------------------------------------------------------------------ scoring frame

def _scoring_frame(refs: Source, preds: Source, order, args):
    """One frame with the group keys under their own names and the span/text columns."""
    taken = set(args.by)
    names = {"ref": _free("ref", taken), "pred": _free("pred", taken)}
    columns = {name: _lookup(name, "--by", refs, preds, order) for name in args.by}
    columns[names["ref"]] = _plain_index(_column(refs.frame, args.ref_col, "--ref-col", refs))
    columns[names["pred"]] = _take(_column(preds.frame, args.pred_col, "--pred-col", preds),
                                   order)
    if args.text_col is not None:
        names["text"] = _free("text", taken)
        columns[names["text"]] = _lookup(args.text_col, "--text-col", refs, preds, order)
    if args.soft_ref_col is not None:
        names["soft_ref"], names["soft_pred"] = _free("soft_ref", taken), _free("soft_pred",
                                                                               taken)
        columns[names["soft_ref"]] = _plain_index(
            _column(refs.frame, args.soft_ref_col, "--soft-ref-col", refs))
        columns[names["soft_pred"]] = _take(
            _column(preds.frame, args.soft_pred_col, "--soft-pred-col", preds), order)
    if args.id_col is not None and args.ci is not None:
        # The ids key the bootstrap resamples: intervals then do not depend on row order.
        names["id"] = _free("id", taken)
        columns[names["id"]] = _plain_index(_column(refs.frame, args.id_col, "--id-col",
                                                     refs))
    return pd.DataFrame(columns), names


def _free(stem: str, taken: set[str]) -> str:
    name = f"__{stem}__"
    while name in taken:
        name = f"_{name}_"
    return name


def _lookup(name: str, option: str, refs: Source, preds: Source, order) -> pd.Series:
    if name in refs.frame.columns:
        return _plain_index(refs.frame[name])
    if preds is not refs and name in preds.frame.columns:
        return _take(preds.frame[name], order)
    where = refs.role if preds is refs else f"{refs.role} or {preds.role}"
    raise KeyError(f"{option} column {name!r} not found in {where}; "
                   f"{_columns_of(refs)}" + ("" if preds is refs else f"; {_columns_of(preds)}"))


def _column(frame: pd.DataFrame, name: str, option: str, source: Source) -> pd.Series:
    if name not in frame.columns:
        raise KeyError(f"{option} column {name!r} not found in {source.role}; "
                       f"{_columns_of(source)}")
    return frame[name]


def _columns_of(source: Source) -> str:
    return f"{source.path} has columns {list(map(str, source.frame.columns))}"


def _take(series: pd.Series, order) -> pd.Series:
    return _plain_index(series if order is None else series.iloc[order])


def _plain_index(series: pd.Series) -> pd.Series:
    return series.reset_index(drop=True)


def _located(exc: SpanValidationError, refs: Source, preds: Source, order, args):
    """The same error, told in file rows (counted from 1) and ids rather than positions."""
    if exc.example is None:
        return exc
    k = exc.example
    in_preds = (exc.side == "predictions" or (exc.side == "text"
                                              and args.text_col not in refs.frame.columns))
    source = preds if in_preds else refs
    row = k if source is refs or order is None else int(order[k])
    where = f"{source.path}, row {row + 1}"
    if args.id_col is not None:
        where += f", id {_plain(refs.frame[args.id_col].iloc[k])!r}"
    return SpanValidationError(f"{exc} [{where}]", side=exc.side, example=exc.example,
                               span=exc.span)


# ------------------------------------------------------------------------ writing

def write_result(result: pd.DataFrame, fmt: str, output: str | None, *, by) -> None:
    """Write the tidy ``result`` as a table, CSV, JSON or Parquet (to ``output`` or stdout)."""
    signature = result.attrs.get(SIGNATURE_ATTR)
    if fmt == "parquet":
        _write_parquet(result, output, signature)
        return
    if fmt == "table":
        text = format_table(result, by=by) + f"\n\nsignature: {signature}\n"
    elif fmt == "csv":
        text = result.to_csv(index=False, lineterminator="\n")
    else:
        text = json.dumps({"signature": signature, "records": _records(result)},
                          indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        Path(output).write_text(text, encoding="utf-8")


def _records(result: pd.DataFrame) -> list[dict]:
    """JSON-ready rows: Python scalars, NaN and nulls as None."""
    rows = result.astype(object).to_dict("records")
    return [{k: None if _is_null(v) else _plain(v) for k, v in row.items()} for row in rows]


def _is_null(value) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _write_parquet(result: pd.DataFrame, output: str, signature: str | None) -> None:
    write_parquet(_tidy_arrow(result), output, signature=signature)


def _tidy_arrow(result: pd.DataFrame) -> pa.Table:
    """The tidy frame as Arrow with the types of `mycelium.frames` (an all-null profile
    column stays a string column)."""
    table = pa.Table.from_pandas(result, preserve_index=False)
    types = {"metric": pa.string(), "measure": pa.string(), "value": pa.float64(),
             "ci_low": pa.float64(), "ci_high": pa.float64(), "examples": pa.int64(),
             "average": pa.string(), "profile": pa.string()}
    for name, typ in types.items():
        i = table.schema.get_field_index(name)
        if i >= 0 and table.schema.field(i).type != typ:
            table = table.set_column(i, name, table.column(i).cast(typ))
    return table


# ------------------------------------------------------------------- table format

def format_table(result: pd.DataFrame, *, by) -> str:
    """An aligned text table: one row per group and metric, the measures as columns.

    With intervals (``ci_low``/``ci_high`` columns), one row per group, metric and
    measure instead, with the value and a ``ci`` column ``[low, high]``.
    """
    keys = list(by)
    if "ci_low" in result.columns:
        return _interval_table(result, keys)
    rows: dict[tuple, dict] = {}
    for rec in result.to_dict("records"):
        ident = tuple(_cell(rec[k]) for k in keys) + (rec["metric"],)
        row = rows.setdefault(ident, {"examples": str(rec["examples"]),
                                      "average": str(rec["average"]),
                                      "profile": _cell(rec["profile"], "-")})
        row[rec["measure"]] = _number(rec["value"])
    present = set(result["measure"]) if len(result) else set()
    measures = [m for m in MEASURES if m in present] + sorted(present - set(MEASURES))
    header = keys + ["metric"] + measures + ["examples", "average", "profile"]
    body = [list(ident) + [row.get(m, "") for m in measures]
            + [row["examples"], row["average"], row["profile"]]
            for ident, row in rows.items()]
    numeric = set(measures) | {"examples"}
    return _aligned([header] + body, [h in numeric for h in header])


def _interval_table(result: pd.DataFrame, keys: list[str]) -> str:
    header = keys + ["metric", "measure", "value", "ci", "examples", "average", "profile"]
    body = [[_cell(rec[k]) for k in keys]
            + [rec["metric"], rec["measure"], _number(rec["value"]),
               f"[{_number(rec['ci_low'])}, {_number(rec['ci_high'])}]",
               str(rec["examples"]), str(rec["average"]), _cell(rec["profile"], "-")]
            for rec in result.to_dict("records")]
    numeric = {"value", "ci", "examples"}
    return _aligned([header] + body, [h in numeric for h in header])


def _aligned(lines: list[list[str]], right: list[bool]) -> str:
    widths = [max(_width(line[i]) for line in lines) for i in range(len(right))]
    rule = ["-" * w for w in widths]
    out = []
    for line in [lines[0], rule] + lines[1:]:
        cells = [_pad(c, w, r) for c, w, r in zip(line, widths, right)]
        out.append("  ".join(cells).rstrip())
    return "\n".join(out)


def _width(cell: str) -> int:
    """Terminal columns of ``cell``: wide (CJK) characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in cell)


def _pad(cell: str, width: int, right: bool) -> str:
    fill = " " * (width - _width(cell))
    return fill + cell if right else cell + fill


def _cell(value, null: str = NULL) -> str:
    return null if _is_null(value) else str(_plain(value))


def _number(value) -> str:
    return "nan" if _is_null(value) else f"{float(value):.4f}"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
