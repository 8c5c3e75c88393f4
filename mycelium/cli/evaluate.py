"""``mycelium evaluate``: read files, pair REFS and PREDS, score with ``df.mycelium.evaluate``.

Reading (jsonl / csv / Parquet, by extension), pairing by id or position, and locating a
bad span in the user's file and row live here, and ``mycelium report`` and ``mycelium
sweep`` read their files with the same helpers (`pair_rows`, `column_of`, `take_rows`,
`lookup_column`, `located_error`); `mycelium.cli.output` writes the result.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa

from ..core.inputs import to_spans
from ..core.profiles import get_profile
from ..core.signature import signature_with
from ..errors import SpanValidationError
from ..core.pipeline import empty_spans_told
from ..frames.told import with_empty_spans
from ..frames.to_pandas import SIGNATURE_ATTR
from ..metrics import SOFT_METRICS
from .args import options_of
from ..core.columns import is_null
from .output import EXIT_OK, write_result
from .output import plain_value as _plain
from .read import FileError, float_rule, read_frame, recorded_rule
from .stream import evaluate_streamed, streamable

#: Output formats told by the --output extension (without --format).
OUTPUT_SUFFIXES = {"": "table", ".txt": "table", ".csv": "csv", ".json": "json",
                   ".parquet": "parquet", ".pq": "parquet"}


@dataclass(frozen=True)
class Source:
    """A file read into a frame, and the name it is reported under (REFS or PREDS)."""

    role: str
    path: str
    frame: pd.DataFrame


def run_evaluate(args: argparse.Namespace) -> int:
    """``mycelium evaluate``: read, pair, score with ``df.mycelium.evaluate``, write.

    One JSON-lines file is scored in batches when the options allow it
    (`mycelium.cli.stream`: the same result, memory bounded by a batch); otherwise, or
    whenever the batched path cannot vouch for the file, the files are read whole."""
    fmt = output_format(args, args.parser)
    rule = float_rule(args)
    # the zero-length spans told, kept on the result as the pandas face keeps them (and so
    # in a Parquet file's pandas metadata), counted by the path that gave the result
    with empty_spans_told() as told:
        result = evaluate_streamed(args) if streamable(args) else None
    if result is None:
        with empty_spans_told() as told:
            result = _evaluate_in_memory(args, rule)
    result = with_empty_spans(result, told)
    write_result(_recorded(result, rule, args), fmt, args.output, by=args.by)
    return EXIT_OK


def _recorded(result: pd.DataFrame, rule: str, args: argparse.Namespace) -> pd.DataFrame:
    """The result with ``float_parse:<rule>`` in its signature when a JSON file's numbers
    were read by it (`recorded_rule`): a rule that did not apply is not recorded."""
    applied = recorded_rule(args, [args.refs, args.preds])
    if applied is None:
        return result
    signature = signature_with(result.attrs.get(SIGNATURE_ATTR), float_parse=applied)
    result.attrs[SIGNATURE_ATTR] = signature
    if "signature" in result.columns:
        result["signature"] = result["signature"].map(
            lambda s: signature_with(s, float_parse=applied) if isinstance(s, str) else s)
    return result


def _evaluate_in_memory(args: argparse.Namespace, rule: str = "exact") -> pd.DataFrame:
    """Read the files whole (numbers by ``rule``), pair them, score with
    ``df.mycelium.evaluate``; a bad span is told by its file, row and column."""
    typed = args.infer_types
    refs = Source("REFS", args.refs, read_frame(args.refs, infer_types=typed,
                                                 float_parse=rule))
    preds = refs if args.preds is None else Source(
        "PREDS", args.preds, read_frame(args.preds, infer_types=typed, float_parse=rule))
    order = pair_rows(refs, preds, args.id_col)
    frame, names = _scoring_frame(refs, preds, order, args)
    try:
        result = frame.mycelium.evaluate(
            names["ref"], names.get("pred"), text=names.get("text"), by=args.by or None,
            soft_ref_col=names.get("soft_ref"), soft_pred_col=names.get("soft_pred"),
            token_offsets_col=names.get("token_offsets"),
            token_scores_col=names.get("token_scores"), id_col=names.get("id"),
            **options_of(args))
    except SpanValidationError as exc:
        raise located_error(exc, refs, preds, order, args) from exc
    return result


def output_format(args: argparse.Namespace, parser: argparse.ArgumentParser) -> str:
    """The output format; usage errors the argument parser cannot see exit with 2."""
    if args.id_col is not None and args.preds is None and args.ci is None:
        parser.error("--id-col pairs REFS with PREDS rows; give a PREDS file as well "
                     "(or --ci, whose resamples it keys)")
    if args.refs == "-" and args.preds == "-":
        parser.error("standard input can be read once: give REFS or PREDS as a file")
    _soft_from_spans(args)
    if args.soft_ref_col is not None and args.soft_pred_col is None:
        parser.error("--soft-ref-col and --soft-pred-col go together (soft_spearman "
                     "compares reference and predicted soft labels; --soft-pred-col "
                     "alone gives scores)")
    _needs(args, parser)
    _needs_scores(args, parser)
    fmt = args.format
    if fmt is None and args.output:
        suffix = Path(args.output).suffix.lower()
        fmt = OUTPUT_SUFFIXES.get(suffix)
        if fmt is None:
            known = ", ".join(f"{s} ({f})" for s, f in OUTPUT_SUFFIXES.items() if s)
            parser.error(f"cannot tell the output format of {args.output!r} from its "
                         f"extension {suffix!r}; expected {known} or no extension (table); "
                         "fix by renaming the file or giving --format.")
    fmt = fmt or "table"
    if fmt == "parquet" and not args.output:
        parser.error("--format parquet writes a binary file: give it with --output FILE")
    return fmt


def _soft_from_spans(args: argparse.Namespace) -> None:
    """Under a profile whose soft labels are the spans (``--profile shroom_visions``),
    --ref-col and --pred-col are also the soft-label columns, read whole (with each
    span's ``prob`` and ``label``), when no soft-label column is given."""
    from ..core.profiles import get_profile

    profile = getattr(args, "profile", None)
    if profile is None or args.soft_ref_col is not None or args.soft_pred_col is not None \
            or getattr(args, "pred_col", None) is None:
        return
    prof = get_profile(profile)
    if prof is not None and prof.rules.soft_labels == "spans":
        args.soft_ref_col, args.soft_pred_col = args.ref_col, args.pred_col


def _needs(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Options that need others, said in the command's own flags (exit 2)."""
    soft = args.soft_ref_col is not None
    if args.granularity != "char" and args.text_col is None:
        parser.error(f"--granularity {args.granularity} needs --text-col: the units are "
                     "found in the texts")
    if getattr(args, "typed_matching", False) and getattr(args, "type_field", None) is None:
        parser.error("--typed-matching needs --type-field (the span field holding the "
                     "type)")
    trim = getattr(args, "trim_spans", None)  # evaluate's flag (sweep shares these checks)
    if trim is not None and args.text_col is None:
        parser.error(f"--trim-spans {trim} needs --text-col: the characters at "
                     "the span edges are read from the texts")
    if soft and args.text_col is None:
        parser.error("--soft-ref-col and --soft-pred-col need --text-col: soft_spearman "
                     "compares per-character probability vectors")
    if soft and args.granularity != "char":
        parser.error("soft_spearman has no word or sentence granularity; score the soft "
                     "labels with --granularity char, in a separate run")
    asked = [m for m in args.metrics or () if m in SOFT_METRICS]
    if asked and not soft:
        parser.error(f"--metrics {asked[0]} needs soft labels: give --soft-ref-col and "
                     "--soft-pred-col")


def _needs_scores(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """The score options (SPEC section 9) in the command's own flags (exit 2): the same
    rules as `mycelium.evaluate`'s keywords."""
    offsets = getattr(args, "token_offsets_col", None)
    token_scores = getattr(args, "token_scores_col", None)
    threshold = getattr(args, "threshold", None)
    if (offsets is None) != (token_scores is None):
        parser.error("--token-offsets-col and --token-scores-col go together (one score "
                     "per token); give both")
    soft_scores = args.soft_pred_col is not None and args.soft_ref_col is None
    if offsets is not None and soft_scores:
        parser.error("give one score form: --soft-pred-col, or --token-offsets-col with "
                     "--token-scores-col, not both")
    scores = soft_scores or offsets is not None
    if args.pred_col is None and not scores:
        parser.error("give the predictions: --pred-col (predicted spans), or scores with "
                     "--soft-pred-col or --token-offsets-col and --token-scores-col "
                     "(optionally --threshold for spans at a threshold)")
    if threshold is not None and args.pred_col is not None:
        parser.error("--pred-col and --threshold exclude each other: at a threshold the "
                     "spans of the scores are the predictions; give one of them")
    if threshold is not None and not scores:
        parser.error("--threshold needs scores: give --soft-pred-col, or "
                     "--token-offsets-col with --token-scores-col")
    if scores and args.text_col is None:
        parser.error("scores need --text-col: the characters outside every reference span "
                     "are the negatives, so each text's length is needed")


# ------------------------------------------------------------------------ pairing

def pair_rows(refs: Source, preds: Source, id_col: str | None):
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
    ids = pd.Index(column_of(source.frame, id_col, "--id-col", source))
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


# ------------------------------------------------------------------ scoring frame

def _scoring_frame(refs: Source, preds: Source, order, args):
    """One frame with the group keys under their own names and the span/text columns."""
    taken = set(args.by)
    names = {"ref": _free("ref", taken)}
    columns = {name: lookup_column(name, "--by", refs, preds, order) for name in args.by}
    columns[names["ref"]] = span_cells(refs, args.ref_col, "--ref-col", args)
    if args.pred_col is not None:
        names["pred"] = _free("pred", taken)
        columns[names["pred"]] = take_rows(span_cells(preds, args.pred_col, "--pred-col", args),
                                       order)
    if args.text_col is not None:
        names["text"] = _free("text", taken)
        columns[names["text"]] = lookup_column(args.text_col, "--text-col", refs, preds, order)
        _check_texts(refs if args.text_col in refs.frame.columns else preds, args)
    if args.soft_ref_col is not None:
        names["soft_ref"], names["soft_pred"] = _free("soft_ref", taken), _free("soft_pred",
                                                                               taken)
        columns[names["soft_ref"]] = _plain_index(
            column_of(refs.frame, args.soft_ref_col, "--soft-ref-col", refs))
        columns[names["soft_pred"]] = take_rows(
            column_of(preds.frame, args.soft_pred_col, "--soft-pred-col", preds), order)
    # With --soft-ref-col the soft labels are soft_spearman's, not scores.
    for option, series in score_columns(refs, preds, order, args,
                                        soft=args.soft_ref_col is None).items():
        role = SCORE_ROLES[option]
        names[role] = _free(role, taken)
        columns[names[role]] = series
    if args.id_col is not None and args.ci is not None:
        # The ids key the bootstrap resamples: intervals then do not depend on row order.
        names["id"] = _free("id", taken)
        columns[names["id"]] = _plain_index(column_of(refs.frame, args.id_col, "--id-col",
                                                     refs))
    return pd.DataFrame(columns), names


#: The frame role of each score option (the accessor's keyword stem).
SCORE_ROLES = {"--soft-pred-col": "soft_pred", "--token-offsets-col": "token_offsets",
               "--token-scores-col": "token_scores"}


def score_columns(refs: Source, preds: Source, order, args, *, soft: bool = True
                  ) -> dict[str, pd.Series]:
    """The score columns named by the options (looked up in PREDS, then REFS: they are
    the detector's output, like --pred-col), in REFS order: Arrow lists as they are
    (Parquet), JSON strings decoded (CSV), a cell that is not JSON named by its file, row
    and column. ``soft=False`` leaves --soft-pred-col out (it is then soft_spearman's
    column)."""
    out = {}
    for option in SCORE_ROLES:
        name = getattr(args, option[2:].replace("-", "_"), None)
        if name is not None and (soft or option != "--soft-pred-col"):
            holder = _holder(name, refs, preds)
            if name not in holder.frame.columns:
                lookup_column(name, option, refs, preds, order)  # raises, naming both files
            series = take_rows(holder.frame[name], None if holder is refs else order)
            out[option] = _decoded(series, holder, name, option,
                                   None if holder is refs else order)
    return out


def _holder(name: str, refs: Source, preds: Source) -> Source:
    """The file a score column is read from: PREDS when it has the column, else REFS."""
    return preds if name in preds.frame.columns else refs


def _decoded(series: pd.Series, source: Source, name: str, option: str, order) -> pd.Series:
    if isinstance(series.dtype, pd.ArrowDtype) or not any(isinstance(v, str)
                                                          for v in series.tolist()):
        return series
    values = []
    for k, v in enumerate(series.tolist()):
        if isinstance(v, str):
            try:
                v = json.loads(v)
            except ValueError as exc:
                row = k if order is None else int(order[k])
                raise FileError(f"{source.role} {source.path}, row {row + 1}, column "
                                f"{name!r} ({option}): Expected a JSON list, got {v[:60]!r} "
                                f"({exc}); fix by writing the cell as JSON, e.g. "
                                f"{_EXAMPLE[option]}.") from None
        elif is_null(v):
            v = None
        values.append(v)
    return pd.Series(values, dtype=object)


_EXAMPLE = {"--soft-pred-col": '[{"start": 0, "end": 4, "prob": 0.8}]',
            "--token-offsets-col": "[[0, 4], [5, 9]]", "--token-scores-col": "[0.1, 0.9]"}


def _free(stem: str, taken: set[str]) -> str:
    name = f"__{stem}__"
    while name in taken:
        name = f"_{name}_"
    return name


def lookup_column(name: str, option: str, refs: Source, preds: Source, order) -> pd.Series:
    """Column ``name`` of REFS, else of PREDS in REFS order; a KeyError naming both files."""
    if name in refs.frame.columns:
        return _plain_index(refs.frame[name])
    if preds is not refs and name in preds.frame.columns:
        return take_rows(preds.frame[name], order)
    where = refs.role if preds is refs else f"{refs.role} or {preds.role}"
    raise KeyError(f"{option} column {name!r} not found in {where}; "
                   f"{_columns_of(refs)}" + ("" if preds is refs else f"; {_columns_of(preds)}"))


def column_of(frame: pd.DataFrame, name: str, option: str, source: Source) -> pd.Series:
    """Column ``name`` of ``frame``; a KeyError naming the option, the file and its columns."""
    if name not in frame.columns:
        raise KeyError(f"{option} column {name!r} not found in {source.role}; "
                       f"{_columns_of(source)}")
    return frame[name]


def _columns_of(source: Source) -> str:
    return f"{source.path} has columns {list(map(str, source.frame.columns))}"


def take_rows(series: pd.Series, order) -> pd.Series:
    """``series`` in REFS order (``order`` from `pair_rows`; None: already), index 0..n-1."""
    return _plain_index(series if order is None else series.iloc[order])


def _plain_index(series: pd.Series) -> pd.Series:
    return series.reset_index(drop=True)


def _spans(source: Source, name: str, option: str, args) -> pd.Series:
    """A span column converted here, where a bad cell can be named by file, row and
    column (the converted Arrow column then reaches the accessor without a copy)."""
    column = column_of(source.frame, name, option, source)
    try:
        spans = to_spans(column)
    except SpanValidationError as exc:
        raise SpanValidationError(_at(source, exc.example, name, option, exc, args),
                                  side=exc.side, example=exc.example, span=exc.span,
                                  problem=exc.problem, fix=exc.fix) from exc
    except (ValueError, TypeError, pa.ArrowException) as exc:
        raise FileError(f"{source.role} {source.path}, column {name!r} ({option}): "
                        f"{exc}") from exc
    return pd.Series(pd.arrays.ArrowExtensionArray(spans))


def span_cells(source: Source, name: str, option: str, args) -> pd.Series:
    """A span column converted (a bad cell named by file, row and column), or with
    --type-field the cells as read, checked the same way, so that each span keeps its
    type field for the per-type rows."""
    spans = _spans(source, name, option, args)
    if getattr(args, "type_field", None) is None:
        return spans
    return column_of(source.frame, name, option, source).reset_index(drop=True)


def _check_texts(source: Source, args) -> None:
    """Every text is a string or null; else name the file, row and column."""
    column = source.frame[args.text_col]
    if pd.api.types.is_string_dtype(column.dtype) and column.dtype != object:
        return
    for row, value in enumerate(column.tolist()):
        if not isinstance(value, str) and not is_null(value):
            raise FileError(f"{source.role} {source.path}, row {row + 1}, column "
                            f"{args.text_col!r} (--text-col): expected a string (or null "
                            f"when the text is unknown), got {type(value).__name__} "
                            f"{value!r}; fix by quoting the text in the file.")


#: Remedies of `SpanValidationError.fix` keys, in the command's own options.
REMEDIES = {"missing": "passing --missing empty to score it as an example without spans, "
                       "or --missing drop to leave it out",
            "text": "giving the row a text in the --text-col column"}


def located_error(exc: SpanValidationError, refs: Source, preds: Source, order, args):
    """The same error told in the file's terms: the file, its row and the column."""
    if exc.example is None:
        return exc
    sides = {"references": (refs, args.ref_col, "--ref-col"),
             "predictions": (preds, args.pred_col, "--pred-col"),
             "soft_references": (refs, args.soft_ref_col, "--soft-ref-col"),
             "soft_predictions": (preds, args.soft_pred_col, "--soft-pred-col"),
             "text": (refs if args.text_col in refs.frame.columns else preds,
                      args.text_col, "--text-col")}
    for side, option in (("soft_predictions", "--soft-pred-col"),
                         ("token_offsets", "--token-offsets-col"),
                         ("token_scores", "--token-scores-col")):
        name = getattr(args, option[2:].replace("-", "_"), None)
        if name is not None and (args.soft_ref_col is None or side != "soft_predictions"):
            sides[side] = (_holder(name, refs, preds), name, option)  # PREDS, then REFS
    if exc.side not in sides:
        return exc
    source, name, option = sides[exc.side]
    k = exc.example
    row = k if source is refs or order is None else int(order[k])
    return SpanValidationError(_at(source, row, name, option, exc, args), side=exc.side,
                               example=exc.example, span=exc.span, problem=exc.problem,
                               fix=exc.fix)


def _at(source: Source, row: int | None, name: str, option: str, exc: SpanValidationError,
        args) -> str:
    """``<ROLE> <file>, row <r>[, id <id>], column <c> (<option>)[, span <j>]: problem``,
    rows and spans counted from 1, then the remedy in the command's options (no row
    when the error names no example)."""
    where = f"{source.role} {source.path}"
    if row is not None:
        where += f", row {row + 1}"
    if (row is not None and args.id_col is not None
            and args.id_col in source.frame.columns):
        where += f", id {_plain(source.frame[args.id_col].iloc[row])!r}"
    where += f", column {name!r} ({option})"
    if exc.span is not None:
        item = "token" if exc.side in ("token_offsets", "token_scores") else "span"
        where += f", {item} {exc.span + 1}"
    problem = exc.problem
    text = f"{where} {problem}" if problem.startswith("is ") else f"{where}: {problem}"
    remedies = getattr(args, "remedies", REMEDIES)  # a command's own, when it has fewer options
    if exc.fix in remedies:
        text = f"{text.rstrip('.')}; fix by {remedies[exc.fix]}."
    return text
