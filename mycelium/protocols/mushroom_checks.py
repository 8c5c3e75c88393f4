"""The record path's checks of a Mu-SHROOM file pair, and their messages.

`mycelium.protocols.mushroom` reads the records and scores them; this module decides
whether they are what the official submission platform accepted (fields present on
every line or on none, ids unique and paired, spans within the text, probabilities in
[0, 1]) and words every refusal as ``<file>[, line <n>]: id '<id>', field '<field>'[,
span <j>]: <problem>``, with the rule of the task's format checker a span breaks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.inputs import from_python
from ..core.spans import validate
from ..errors import MyceliumError, SpanValidationError
from ..io.mushroom import checker_rule
from ..metrics.soft_spearman import soft_vector

__all__ = ["MushroomInputError", "refuse_byte_order_mark"]  # and the checks of
# mycelium.protocols.mushroom


class MushroomInputError(MyceliumError, ValueError):
    """A reference or prediction file the official platform would have rejected.

    The message names the file (and, for a record, its id and the field).

    Examples
    --------
    >>> from mycelium.protocols.mushroom import score_records
    >>> try:
    ...     score_records([], [])
    ... except MushroomInputError as exc:
    ...     print(exc)
    reference: the reference file has no records.
    """


def _check_references(refs: list[dict], name: str) -> None:
    if not refs:
        raise MushroomInputError(f"{name}: the reference file has no records.")
    for i, r in enumerate(refs):
        for field in ("id", "model_output_text", "hard_labels", "soft_labels"):
            if field not in r:
                raise MushroomInputError(f"{name}: record {_rid(r, i)} has no '{field}' "
                                         "field; a reference needs id, model_output_text, "
                                         "hard_labels and soft_labels.")
        if not isinstance(r["model_output_text"], str):
            raise MushroomInputError(f"{name}: {_rid(r, i)}, field 'model_output_text': "
                                     f"expected a string, got {r['model_output_text']!r}.")
        for field in ("hard_labels", "soft_labels"):
            if not isinstance(r[field], list):
                raise MushroomInputError(f"{name}: {_rid(r, i)}, field '{field}': expected a "
                                         f"list, got {r[field]!r}.")
        _integer_pairs(r, name)


def refuse_byte_order_mark(path) -> None:
    """Refuse a file that starts with a UTF-8 byte order mark.

    Quirk of the official Mu-SHROOM scorer: its reader (``pandas.read_json``) refuses
    such a file, and the scorer stops with argparse's "invalid value" error, so the
    platform could not score it. `mycelium.protocols.mushroom.read_jsonl` (a reader,
    not the drop-in) still drops the mark.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(3)
    except OSError:
        return  # the reader reports it, with the reason
    if head == b"\xef\xbb\xbf":
        raise MushroomInputError(f"{path}: the file starts with a UTF-8 byte order mark, "
                                 "which the official scorer's reader refuses (the platform "
                                 "could not score it); fix by saving the file as UTF-8 "
                                 "without a BOM.")


def _integer_pairs(record: dict, name: str) -> None:
    """Refuse hard labels that are not ``[int, int]`` pairs.

    Quirk of the official Mu-SHROOM scorer: it reads each hard label with
    ``range(*span)``, which stops the whole file with a TypeError on a float offset
    (even an integral one such as ``3.0``) and on a ``{"start", "end"}`` dict (the
    range of its keys). `mycelium.evaluate` reads both; the drop-in refuses them.
    """
    labels = record.get("hard_labels")
    if not isinstance(labels, list):
        return  # the list check names it
    for j, span in enumerate(labels):
        if isinstance(span, dict):
            problem = (f"expected a [start, end] pair, got the dict {span!r}; the official "
                       "scorer reads a hard label with range(*span), which fails on a dict "
                       "(the platform could not score the file); fix by writing "
                       "[start, end].")
        elif isinstance(span, list) and len(span) == 2 and any(
                isinstance(v, float) for v in span):
            problem = (f"expected integer offsets, got {span!r}; the official scorer reads "
                       "a hard label with range(*span), which fails on a float, even an "
                       "integral one (the platform could not score the file); fix by "
                       "writing integers.")
        else:
            continue
        raise MushroomInputError(f"{name}: id {record.get('id')!r}, field 'hard_labels', "
                                 f"span {j}: {problem}")


def _checked_hard(p: dict, text_len: int, name: str) -> list[list[int]]:
    """The prediction's hard labels as int pairs, validated against the text."""
    labels = _hard(p, name)
    _integer_pairs(p, name)
    try:
        batch, _ = from_python([labels], "predictions", single=True)
        validate(batch, "predictions", np.array([text_len]))
    except SpanValidationError as exc:
        raise MushroomInputError(_span_error(exc, name, p, "hard_labels", text_len)) from None
    return [list(pair) for pair in zip(batch.starts.tolist(), batch.ends.tolist())]


def _checked_soft(p: dict, text_len: int, name: str) -> list[dict]:
    """The prediction's soft labels, validated (types, bounds, probabilities)."""
    labels = _soft(p, name)
    try:
        soft_vector(labels, text_len, "soft_predictions", 0)
    except SpanValidationError as exc:
        raise MushroomInputError(_span_error(exc, name, p, "soft_labels", text_len)) from None
    return labels


def _span_error(exc: SpanValidationError, name: str, record: dict, field: str,
                text_len: int) -> str:
    """``<file>[:<line>]: id '<id>', field '<field>', span <j>: <problem>`` and the
    format-checker rule the span breaks."""
    at = f"{name}: id {record['id']!r}, field '{field}'"
    rule = ""
    if exc.span is not None:
        at += f", span {exc.span}"
        span = record[field][exc.span]
        if field == "hard_labels" and isinstance(span, (list, tuple)) and len(span) == 2:
            rule = checker_rule(span[0], span[1], text_len)
        elif field == "soft_labels" and isinstance(span, dict):
            rule = checker_rule(span.get("start"), span.get("end"), text_len,
                                has_prob="prob" in span)
    return f"{at}: {_after_location(exc)} {rule}".rstrip()


def _namer(name: str, records: list[dict], lines: list[int] | None):
    """``record -> "<file>:<line>"`` (just the file's name without line numbers)."""
    if lines is None:
        return lambda record: name
    line_of = {id(r): n for r, n in zip(records, lines)}
    return lambda record: f"{name}, line {line_of[id(record)]}"


def _after_location(exc: SpanValidationError) -> str:
    text = str(exc)
    return text.split(": ", 1)[1] if ": " in text else text


def _rid(record: dict, i: int) -> str:
    return f"id {record['id']!r}" if "id" in record else f"#{i + 1}"


def _label_fields(preds: list[dict], name: str) -> tuple[bool, bool]:
    """Which label fields the prediction file has (decided per file, as officially)."""
    present = {}
    for field in ("hard_labels", "soft_labels"):
        have = [field in p for p in preds]
        if any(have) and not all(have):
            i = have.index(False)
            raise MushroomInputError(
                f"{name}: record {_rid(preds[i], i)} has no '{field}' field although other "
                "records have it; give the field on every line or on none.")
        present[field] = bool(preds) and all(have)
    if preds and not (present["hard_labels"] or present["soft_labels"]):
        raise MushroomInputError(f"{name}: no 'hard_labels' or 'soft_labels' field; a "
                                 "prediction file must contain at least one of them.")
    return present["hard_labels"], present["soft_labels"]


def _by_id(records: list[dict], name: str) -> dict[Any, dict]:
    out: dict[Any, dict] = {}
    for i, r in enumerate(records):
        if "id" not in r:
            raise MushroomInputError(f"{name}: record #{i + 1} has no 'id' field.")
        if r["id"] is None:
            # Quirk of the official Mu-SHROOM scorer: it asserts that each pair's ids are
            # equal after sorting by id; a null id (NaN in its frame) fails that.
            raise MushroomInputError(f"{name}: record #{i + 1}, field 'id': the id is null, "
                                     "which the official scorer refuses (its check that "
                                     "paired ids are equal fails); fix by giving every "
                                     "record its id.")
        key = _id_key(r["id"])
        if key in out:
            raise MushroomInputError(f"{name}: id {r['id']!r} appears more than once; ids "
                                     "must be unique.")
        out[key] = r
    return out


def _id_key(value):
    return str(value)


def _same_ids(refs: dict, preds: dict, ref_name: str, pred_name: str) -> None:
    missing = [i for i in refs if i not in preds]
    extra = [i for i in preds if i not in refs]
    if missing:
        raise MushroomInputError(f"{pred_name}: no prediction for id {missing[0]!r} of "
                                 f"{ref_name} ({len(missing)} missing); every reference id "
                                 "needs exactly one prediction.")
    if extra:
        raise MushroomInputError(f"{pred_name}: id {extra[0]!r} is not in {ref_name} "
                                 f"({len(extra)} extra); remove predictions for unknown ids.")


def _listed(p: dict, name: str, field: str, items: str) -> list:
    """Record ``p``'s ``field``, refused unless it is a list (of ``items``)."""
    labels = p[field]
    if not isinstance(labels, list):
        raise MushroomInputError(f"{name}: id {p['id']!r}, field '{field}': expected a "
                                 f"list of {items}, got {labels!r}.")
    return labels


def _soft(p: dict, name: str) -> list:
    return _listed(p, name, "soft_labels", "{start, end, prob}")


def _hard(p: dict, name: str) -> list:
    return _listed(p, name, "hard_labels", "[start, end]")


def _located(exc: SpanValidationError, pairs: list, names: tuple[str, str], namers):
    side = exc.side or ""
    k = 0 if side in ("references", "soft_references") else 1
    field = "soft_labels" if side.startswith("soft") else "hard_labels"
    if exc.example is None:
        return MushroomInputError(f"{names[k]}: a record, field '{field}': {exc}")
    record = pairs[exc.example][k]
    return MushroomInputError(f"{namers[k](record)}: id {record['id']!r}, field "
                              f"'{field}': {exc}")
