"""The ``mycelium`` command: the parser and the entry point, one module per subcommand.

``mycelium evaluate`` (`mycelium.cli.evaluate`, writing with `mycelium.cli.output`)
scores span columns of JSONL, CSV or Parquet files through the pandas accessor;
``mycelium mushroom`` (`mycelium.cli.mushroom`) is the official Mu-SHROOM scorer,
``mycelium shroom-visions`` (`mycelium.cli.shroom_visions`) the SHROOM-Visions kit's. Exit
status: 0 on success, 1 for bad data (one ``mycelium: error: ...`` line on stderr), 2
for bad usage.
"""

from __future__ import annotations

import argparse
import importlib
import io
import math
import os
import sys
import warnings
from typing import Any, Callable, Sequence

from .._version import __version__
from ..errors import EmptySpanWarning, MyceliumError, UndefinedMetricWarning, closest_name
from .args import names as _names

__all__ = ["main", "build_parser", "read_frame"]

EXIT_OK, EXIT_DATA, EXIT_USAGE = 0, 1, 2

#: The subcommands: name -> (the one line ``mycelium --help`` shows, and where the
#: function that adds its parser lives, "module:function" under mycelium.cli). A
#: subcommand's module is imported only when that subcommand is parsed, so that
#: ``mycelium --help`` and ``--version`` import nothing heavy; its adder calls
#: ``commands.add_parser(name, help=<the same line>, ...)`` and sets ``run``.
COMMANDS: dict[str, tuple[str, str]] = {
    "evaluate": ("score span columns, overall or per group", "app:_add_evaluate"),
    "mushroom": ("the official Mu-SHROOM scorer (IoU and Cor)", "mushroom:add_parser"),
    "shroom-visions": ("the SHROOM-Visions kit scorer (Cor, IoU, Cor lbl)",
                       "shroom_visions:add_parser"),
    "sweep": ("span metrics of scores at many thresholds", "app:_add_sweep"),
    "report": ("write a self-contained HTML report", "report:add_parser"),
    "data": ("the benchmark registry and the local cache", "data:add_parser"),
    "rank": ("place a submission on a published leaderboard", "rank:add_parser"),
}


def _data_errors() -> tuple[type[BaseException], ...]:
    """Everything a bad input file or bad data can raise: reported in one line, exit 1.
    (Arrow's errors only once pyarrow is loaded: before that none can have been raised.)"""
    errors: tuple[type[BaseException], ...] = (MyceliumError, KeyError, ValueError,
                                               TypeError, OSError)
    pa = sys.modules.get("pyarrow")
    return errors + (pa.ArrowException,) if pa is not None else errors


def __getattr__(name: str) -> Any:
    if name == "read_frame":  # public here too; loads pandas and pyarrow
        from .read import read_frame

        return read_frame
    if name == "DATA_ERRORS":
        return _data_errors()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ------------------------------------------------------------------------- parser

EVALUATE_DESCRIPTION = """\
Score the span columns of a file (REFS alone) or of two files (REFS and PREDS,
paired by --id-col or by position), overall or per group.

Files are read by extension: .jsonl, .ndjson, .json (one JSON object per line),
.csv (cells as text unless --infer-types; span cells as JSON strings), .parquet;
.jsonl.gz and .csv.gz are read compressed; '-' reads JSON lines from standard input.

Detector scores instead of, or beside, predicted spans: a soft-label
column (--soft-pred-col without --soft-ref-col) or token offsets and scores
(--token-offsets-col with --token-scores-col) add char_auroc, char_ap and
response_auroc (needs --text-col); with --threshold and no --pred-col the spans
scoring > T are the predictions of every span metric."""
EVALUATE_EPILOG = """\
exit status: 0 on success, 1 for bad data (one 'mycelium: error: ...' line on
stderr), 2 for bad usage.

example:
  mycelium evaluate detections.jsonl --ref-col ref_spans --pred-col pred_spans \\
      --text-col text --by detector,lang --profile ragtruth
  mycelium evaluate scores.parquet --ref-col ref_spans --text-col text \
      --token-offsets-col offsets --token-scores-col probs --threshold 0.5"""


class _Parser(argparse.ArgumentParser):
    """argparse's parser, answering a value outside an option's choices (a subcommand,
    ``--profile``, ``--average``, ...) with the one it most likely meant, by the same
    matcher as the library's "did you mean" (`mycelium.errors.closest_name`). Subparsers
    are made of the parser's own class, so every subcommand answers the same way."""

    def _check_value(self, action, value):
        if action.choices is not None and value not in action.choices:
            if action.dest == "profile":  # a benchmark scored by a procedure of its own
                from ..core.profiles import procedure_hint

                hint = procedure_hint(value)
                if hint is not None:
                    raise argparse.ArgumentError(action, f"invalid choice: {value!r}. {hint}")
            close = closest_name(value, [str(c) for c in action.choices])
            if close is not None:
                choices = ", ".join(map(repr, action.choices))
                raise argparse.ArgumentError(action, f"invalid choice: {value!r}; did you "
                                                     f"mean {close!r}? (choose from {choices})")
        super()._check_value(action, value)


def build_parser(only: str | None = None, *, full: bool = True
                 ) -> argparse.ArgumentParser:
    """The ``mycelium`` argument parser (one subparser per subcommand).

    Parameters
    ----------
    only : str, optional
        Build this subcommand's parser in full and the others' as their one help line,
        without importing their modules (what `main` does: it builds the subcommand it
        is about to run).
    full : bool, default True
        With ``only=None``: build every subcommand in full; False builds none (enough
        for ``mycelium --help`` and ``--version``).
    """
    parser = _Parser(
        prog="mycelium",
        description="Score hallucination-span detectors under every benchmark convention.")
    parser.add_argument("--version", action="version", version=f"mycelium {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="on an error, print the full traceback")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (help_line, where) in COMMANDS.items():
        if name == only or (only is None and full):
            _adder(where)(commands)
        else:
            commands.add_parser(name, help=help_line)
    return parser


def _adder(where: str) -> Callable[[Any], None]:
    module, function = where.split(":")
    return getattr(importlib.import_module(f".{module}", __package__), function)


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names: its first word that is not an option (the
    top-level options take no value)."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def _add_sweep(commands) -> None:
    from . import sweep as cli_sweep

    cli_sweep.add_parser(commands, names=_names, metric_names=_sweep_metric_names,
                         thresholds=cli_sweep.parse_thresholds)


def _add_evaluate(commands) -> None:
    from ..core.profiles import PROFILES
    from ..core.settings import GRANULARITIES, TRIM_SPANS
    from ..io.float_parse import FLOAT_PARSES
    from ..metrics import METRICS, SOFT_METRICS
    from . import sweep as cli_sweep
    from .evaluate import run_evaluate
    from .output import FORMATS

    p = commands.add_parser(
        "evaluate", help="score span columns, overall or per group",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=EVALUATE_DESCRIPTION, epilog=EVALUATE_EPILOG)
    p.add_argument("refs", metavar="REFS", help="file with the reference spans")
    p.add_argument("preds", metavar="PREDS", nargs="?",
                   help="file with the predicted spans (default: REFS holds both columns)")
    p.add_argument("--ref-col", required=True, help="column of reference spans (in REFS)")
    p.add_argument("--pred-col",
                   help="column of predicted spans (in PREDS, else in REFS); optional with "
                        "score columns (--soft-pred-col, --token-offsets-col)")
    p.add_argument("--text-col", help="column of output texts: spans must end within them "
                                      "(looked up in REFS, then PREDS)")
    p.add_argument("--id-col", help="pair REFS and PREDS rows by this column instead of "
                                    "by position; every id must occur once in each file "
                                    "(with --ci, the ids also key the resamples)")
    p.add_argument("--by", type=_names, action="extend", default=[], metavar="COLUMNS",
                   help="comma-separated group columns (REFS, then PREDS); null keys form "
                        "their own group")
    p.add_argument("--profile", choices=sorted(PROFILES), help="benchmark profile")
    p.add_argument("--type-field", metavar="FIELD",
                   help="the span field holding a type (e.g. label_type): per-type rows "
                        "(a type column) instead of the overall ones, each type's "
                        "reference-side measures and its count n_ref; needed by "
                        "typed_span")
    p.add_argument("--typed-matching", action="store_true",
                   help="with --type-field: restrict the predictions to each type too "
                        "(they must carry the field), every measure per type")
    p.add_argument("--metrics", type=_metric_names, metavar="NAMES",
                   help=f"comma-separated metrics (default: all): {', '.join(METRICS)}, "
                        f"and {', '.join(SOFT_METRICS)} with soft labels")
    p.add_argument("--average", choices=("macro", "micro"),
                   help="default: the profile's, else macro")
    p.add_argument("--zero-division", type=_zero_division, metavar="{0,1,nan,warn}",
                   help="value of an undefined precision or recall; warn: 0 and a "
                        "warning per measure saying how many were undefined (default: "
                        "the profile's, else 0)")
    p.add_argument("--params", type=_params, metavar="JSON",
                   help='metric parameters, e.g. \'{"deteval_1d": {"recall_threshold": 0.7}}\'')
    p.add_argument("--infer-types", action="store_true",
                   help="CSV: let pandas infer numbers and booleans (default: every cell is "
                        "text, so ids or keys '007' and '7' differ; empty cells are null)")
    p.add_argument("--float-parse", dest="float_parse", choices=FLOAT_PARSES,
                   help="how JSON numbers become floats (default: the profile's rule, "
                        "'pandas-fast' for mu_shroom as its official scorer reads them; "
                        "else 'exact'); recorded in the signature")
    p.add_argument("--missing", choices=("error", "empty", "drop"), default="error",
                   help="a null span cell is an error (default), an example without spans, "
                        "or left out")
    p.add_argument("--granularity", choices=GRANULARITIES, default="char",
                   help="unit of scoring (needs --text-col): spans mark the words or "
                        "sentences they touch (default: char)")
    p.add_argument("--trim-spans", choices=TRIM_SPANS,
                   help="strip whitespace (or whitespace and punctuation) from both ends of "
                        "every span before scoring (needs --text-col; recorded in the "
                        "signature; default: off)")
    p.add_argument("--offsets", choices=("half-open", "inclusive"), default="half-open",
                   help="how span offsets are read: half-open [start, end) (default) or "
                        "inclusive [start, end], read as [start, end + 1) (recorded in the "
                        "signature)")
    p.add_argument("--soft-ref-col", metavar="COLUMN",
                   help="column of reference soft labels, lists of {start, end, prob} (in "
                        "REFS); with --soft-pred-col adds soft_spearman (needs --text-col)")
    p.add_argument("--soft-pred-col", metavar="COLUMN",
                   help="column of predicted soft labels (in PREDS, else in REFS): with "
                        "--soft-ref-col, soft_spearman; alone, scores for char_auroc, "
                        "char_ap and response_auroc")
    cli_sweep.add_score_options(p)
    p.add_argument("--threshold", type=_threshold, metavar="T",
                   help="with scores and no --pred-col: the spans scoring > T are the "
                        "predictions, for every span metric")
    p.add_argument("--ci", type=_level, metavar="LEVEL",
                   help="add percentile-bootstrap intervals at this level, e.g. 0.95 "
                        "(columns ci_low, ci_high; resampled within each group, examples "
                        "keyed by --id-col when given, else by row position)")
    p.add_argument("--n-resamples", "--resamples", type=_resamples, default=1000,
                   metavar="N", help="bootstrap resamples with --ci (default: 1000; "
                                     "--resamples is an alias)")
    p.add_argument("--seed", type=_seed, default=0, metavar="S",
                   help="bootstrap seed with --ci (default: 0; recorded in the signature)")
    p.add_argument("--format", choices=FORMATS,
                   help="output format (default: from the --output extension, else table)")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of standard output "
                                          "(required for parquet)")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help="on an error, print the full traceback")
    p.set_defaults(run=run_evaluate, parser=p)


def _metric_names(value: str) -> list[str]:
    from ..metrics import names as metric_names
    from ..metrics import unknown_name

    names = _names(value)
    valid = list(metric_names())
    for name in names:
        if name not in valid:
            raise argparse.ArgumentTypeError(str(unknown_name("metric", name, valid)))
    return names


def _sweep_metric_names(value: str) -> list[str]:
    from ..metrics import METRICS, unknown_name

    names = _names(value)
    valid = list(METRICS) + ["response_level"]
    for name in names:
        if name not in valid:
            raise argparse.ArgumentTypeError(str(unknown_name("metric", name, valid)))
    return names


def _threshold(value: str) -> float:
    try:
        t = float(value)
    except ValueError:
        t = math.nan
    if not 0.0 <= t <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a threshold in [0, 1], e.g. 0.5, got "
                                         f"{value!r}")
    return t


def _level(value: str) -> float:
    try:
        level = float(value)
    except ValueError:
        level = math.nan
    if not 0 < level < 1:
        raise argparse.ArgumentTypeError(f"expected a confidence level in (0, 1), e.g. "
                                         f"0.95, got {value!r}")
    return level


def _resamples(value: str) -> int:
    number = _integer(value)
    if number is None or number < 2:
        raise argparse.ArgumentTypeError(f"expected an integer >= 2 (1000 or more for a 95% "
                                         f"interval), got {value!r}")
    return number


def _seed(value: str) -> int:
    number = _integer(value)
    if number is None or not 0 <= number < 2**64:
        raise argparse.ArgumentTypeError(f"expected an integer in [0, 2**64), got {value!r}")
    return number


def _integer(value: str) -> int | None:
    try:
        return int(value)
    except ValueError:
        return None


def _warn(record: warnings.WarningMessage) -> None:
    """A warning as one ``mycelium: warning: ...`` line, in the command's own flags."""
    w = record.message
    if isinstance(w, UndefinedMetricWarning):
        text = (f"{w.metric} {w.measure}: {w.where} undefined (0/0), scored as 0 "
                "(--zero-division warn); pass --zero-division 0, 1 or nan to choose a value "
                "and silence this.")
    elif isinstance(w, EmptySpanWarning):
        text = str(w).replace('passing offsets="inclusive"', "passing --offsets inclusive")
    else:
        text = str(w)
    print(f"mycelium: warning: {text}", file=sys.stderr)


def _zero_division(value: str):
    if value.lower() in ("nan", "warn"):
        return value.lower()
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if number not in (0.0, 1.0):
        raise argparse.ArgumentTypeError(f"expected 0, 1, nan or warn, got {value!r}")
    return number


def _params(value: str) -> dict:
    import json

    try:
        params = json.loads(value)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON ({exc.msg}): {value!r}") from None
    if not isinstance(params, dict):
        raise argparse.ArgumentTypeError(
            f"expected a JSON object {{metric: {{name: value}}}}, got {value!r}")
    return params


# ------------------------------------------------------------------- entry point

def _command_process() -> None:
    """Settings of a process that runs the command (not of a library call): numpy's
    transparent huge pages off, unless ``NUMPY_MADVISE_HUGEPAGE`` is set.

    A command allocates most of its arrays once, in a fresh process; where the kernel
    backs madvised memory with huge pages on first touch, zeroing them cost the
    ``mushroom`` command 0.3-0.9 s of system time per run on 100,000 examples
    (benchmarks/README.md, "Every path in one run"), more than the pages save."""
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return
    try:
        from numpy._core import multiarray
    except ImportError:  # another numpy layout: keep its default
        return
    setting = getattr(multiarray, "_set_madvise_hugepage", None)
    if setting is not None:
        setting(False)



def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``mycelium`` command; return its exit status (0, 1 or 2).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        0 on success; 1 for bad data (one ``mycelium: error: ...`` line on stderr, the
        traceback too with ``--debug``); 2 for bad usage (argparse's message). Nothing
        is raised for these: the console script exits with the status.

    Examples
    --------
    >>> main(["--version"])
    mycelium 0.1.0
    0
    >>> import json, os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "spans.jsonl")
    ...     with open(path, "w", encoding="utf-8") as fh:
    ...         _ = fh.write(json.dumps({"ref": [[0, 10]], "pred": [[2, 8]]}) + "\\n")
    ...     main(["evaluate", path, "--ref-col", "ref", "--pred-col", "pred",
    ...           "--metrics", "iou", "--format", "csv"])  # doctest: +ELLIPSIS
    metric,measure,value,examples,average,profile,signature
    iou,score,0.6,1,macro,,mycelium:0.1.0|profile:none|average:macro|...|granularity:char
    0
    """
    process = argv is None  # the process is the command
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command_of(argv), full=False)
    args = None
    try:
        args = parser.parse_args(argv)
        if process:
            _command_process()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UndefinedMetricWarning)
            status = args.run(args)
        for w in caught:
            _warn(w)
        return status
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except BrokenPipeError:  # e.g. `mycelium evaluate ... | head`
        _silence_stdout()
        return EXIT_DATA
    except _data_errors() as exc:
        if getattr(args, "debug", False):
            import traceback

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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
