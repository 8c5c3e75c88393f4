"""``mycelium evaluate``: read files, pair REFS and PREDS, score with ``df.mycelium.evaluate``.

Reading (jsonl / csv / Parquet, by extension), pairing by id or position, and locating a
bad span in the user's file and row live here; `mycelium.cli_output` writes the result.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .cli_output import EXIT_OK, _plain, write_result
from .cli_read import read_frame
from .errors import SpanValidationError

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
    """``mycelium evaluate``: read, pair, score with ``df.mycelium.evaluate``, write."""
    fmt = _output_format(args, args.parser)
    typed = args.infer_types
    refs = Source("REFS", args.refs, read_frame(args.refs, infer_types=typed))
    preds = refs if args.preds is None else Source(
        "PREDS", args.preds, read_frame(args.preds, infer_types=typed))
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
