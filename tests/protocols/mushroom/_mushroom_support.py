"""Shared machinery of the ``mycelium mushroom`` fidelity tests (tests/protocols/mushroom/).

A case of the oracle collection (``../shared/oracle/mushroom_cases.json``, or the
committed selection ``cases.json``) is written to a REF and a PRED jsonl file exactly as
it says (``raw_lines`` verbatim, else one ``json.dumps(record, ensure_ascii=False)`` per
line) and run through ``mycelium.cli.app.main(["mushroom", REF, PRED, OUT])`` in-process.

Every case falls in exactly one category (`classify`):

``error``
    ``expected.status == "error"``: the official scorer crashed. mycelium must exit 1
    with one ``mycelium: error:`` line naming the file, the id and the field.
``invalid``
    the official scorer produced numbers, but an input span is outside the text,
    negative or reversed, or a probability is outside [0, 1]. mycelium rejects such
    input as the submission platform did (SPEC.md section 6): exit 1, one line.
``ok``
    everything else: OUT byte-identical to ``expected.printed``, exit 0, per-example
    IoU/Cor within 1e-9 in the scorer's id order. Numbers are read as the official
    reader (``pandas.read_json``, ``precise_float=False``) reads them, mycelium's default
    (``float_parse="pandas-fast"``); a case with ``raw_lines`` is also run with
    ``--float-parse exact``, which must give `reference_score` of the exactly parsed
    records (for the cases in `FLOAT_TEXT_CASES`, not the official output).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
from collections import Counter
from pathlib import Path

import numpy as np

from mycelium.cli.app import main
from mycelium.io.float_parse import pandas_fast_float
from mycelium.protocols.mushroom import derive_hard_labels, derive_soft_labels, score_files

HERE = Path(__file__).resolve().parent
PER_EXAMPLE_TOL = 1e-9  # the oracle schema's advice for per-example floats
ERROR_PREFIX = "mycelium: error:"
LABEL_FIELDS = ("hard_labels", "soft_labels")
CATEGORIES = ("ok", "error", "invalid")
#: ``parse_float`` of `json.loads` for each reading of the numbers.
PARSE_FLOAT = {"pandas-fast": pandas_fast_float, "exact": None}

#: Cases whose ``raw_lines`` float text makes the official reader (pandas.read_json,
#: precise_float=False) see other numbers than an exact reader, so that the official
#: output is mycelium's default (``float_parse="pandas-fast"``) and not its
#: ``--float-parse exact`` result. Only edge_float_parse_tie is in the public half of the
#: oracle; the threshold case is rebuilt from its description in
#: test_mushroom_float_parse.py.
FLOAT_TEXT_CASES = {
    "edge_float_parse_threshold": (
        'pandas reads "0.5000000000000001" as 0.5, so the soft span is not a derived hard '
        "label officially; read exactly it is > 0.5 and becomes one (IoU differs)"),
    "edge_float_parse_tie": (
        'pandas reads "0.3" as 0.30000000000000004, tying it with the next span '
        "(official Cor 0.91287093); read exactly there is no tie (Cor 0.70106818)"),
}


# ------------------------------------------------------------------------- loading

def load_json(path) -> dict:
    return json.loads(Path(path).read_bytes().decode("utf-8"))


def load_selection() -> dict:
    return load_json(HERE / "cases.json")


def load_baselines() -> dict:
    return load_json(HERE / "leaderboard_baselines.json")


def ref_records(case, ref_sets=None) -> list[dict]:
    ref = case["ref"]
    if "ref_set" in ref:
        if ref_sets is None:
            raise AssertionError("%s needs ref_sets" % case["case_id"])
        return ref_sets[ref["ref_set"]]["records"]
    return ref["records"]


def side_lines(side: dict, records: list[dict]) -> list[str]:
    """The exact lines of one file: ``raw_lines`` if given (authoritative), else dumps."""
    if "raw_lines" in side:
        return list(side["raw_lines"])
    return [json.dumps(record, ensure_ascii=False) for record in records]


def parsed_side(side: dict, records: list[dict], float_parse: str = "pandas-fast"
                ) -> list[dict]:
    """The records as a reader of the written file sees them (numbers read by
    ``float_parse``: by default as the official reader reads them).

    Without raw_lines and read exactly, that is the records themselves: they came from
    JSON, and json.dumps/json.loads round-trips them (floats by repr).
    """
    if "raw_lines" not in side and float_parse == "exact":
        return records
    return [json.loads(line, parse_float=PARSE_FLOAT[float_parse])
            for line in side_lines(side, records)]


def write_lines(path: Path, lines) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def write_case(case, directory: Path, ref_sets=None) -> tuple[Path, Path]:
    """REF and PRED files of a case, exactly as the case says."""
    ref = write_lines(directory / "ref.jsonl", side_lines(case["ref"], ref_records(case, ref_sets)))
    pred = write_lines(directory / "pred.jsonl",
                       side_lines(case["pred"], case["pred"]["records"]))
    return ref, pred


# ----------------------------------------------------------------- classification

def _key(value) -> str:
    return str(value)


def invalid_spans(case, ref_sets=None) -> list[tuple[str, object, str]]:
    """``(side, id, field)`` of every record with a span outside the text, negative or
    reversed, or a probability outside [0, 1] (sides "ref" / "pred")."""
    refs = parsed_side(case["ref"], ref_records(case, ref_sets))
    preds = parsed_side(case["pred"], case["pred"]["records"])
    lengths = {_key(r.get("id")): len(r.get("model_output_text") or "") for r in refs}
    found = []
    for side, records in (("ref", refs), ("pred", preds)):
        for record in records:
            n = lengths.get(_key(record.get("id")))
            if n is None:
                continue
            for field in LABEL_FIELDS:
                if field in record and _bad_spans(record[field], field, n):
                    found.append((side, record.get("id"), field))
    return found


def _bad_spans(spans, field: str, n: int) -> bool:
    if not isinstance(spans, list):
        return False
    for span in spans:
        try:
            if field == "hard_labels":
                s, e = span
                p = 1.0
            else:
                s, e, p = span["start"], span["end"], span["prob"]
        except (TypeError, ValueError, KeyError):
            continue
        if isinstance(s, int) and isinstance(e, int) and not 0 <= s <= e <= n:
            return True
        if isinstance(p, (int, float)) and not 0.0 <= p <= 1.0:
            return True
    return False


def classify(case, ref_sets=None) -> str:
    if case["expected"]["status"] == "error":
        return "error"
    if invalid_spans(case, ref_sets):
        return "invalid"
    return "ok"


def category_counts(cases, ref_sets=None) -> Counter:
    return Counter(classify(c, ref_sets) for c in cases)


def problems(case, ref_path: Path, pred_path: Path, ref_sets=None) -> list[tuple]:
    """Every reason a case's files are invalid, each as the fragments (file, id, field)
    a one-line error about it must contain. An error case with none is unclassified."""
    refs = parsed_side(case["ref"], ref_records(case, ref_sets))
    preds = parsed_side(case["pred"], case["pred"]["records"])
    rname, pname = str(ref_path), str(pred_path)
    out = []
    for r in refs:
        for field in ("id", "model_output_text", *LABEL_FIELDS):
            if field not in r:
                out.append((rname, field) + ((str(r["id"]),) if "id" in r else ()))
    present = {f: [f in p for p in preds] for f in LABEL_FIELDS}
    if preds and not any(any(v) for v in present.values()):
        out.append((pname, *LABEL_FIELDS))
    for field, have in present.items():
        if any(have) and not all(have):
            out += [(pname, str(p.get("id")), field) for p in preds if field not in p]
    for name, records in ((rname, refs), (pname, preds)):
        counts = Counter(_key(r.get("id")) for r in records)
        out += [(name, i) for i, k in counts.items() if k > 1]
    ref_ids = {_key(r.get("id")) for r in refs}
    pred_ids = {_key(p.get("id")) for p in preds}
    out += [(pname, i) for i in sorted(ref_ids - pred_ids)]  # missing
    out += [(pname, i) for i in sorted(pred_ids - ref_ids)]  # extra
    for side, example_id, field in invalid_spans(case, ref_sets):
        out.append((rname if side == "ref" else pname, str(example_id), field))
    return out


# ------------------------------------------------------------------------ running

def run_cli(argv) -> tuple[int, str, str]:
    """``mycelium.cli.app.main(argv)`` in-process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def assert_one_error_line(stderr: str, acceptable: list[tuple], what="") -> str:
    """stderr is exactly one ``mycelium: error:`` line holding every fragment of at
    least one of the ``acceptable`` fragment tuples."""
    lines = stderr.splitlines()
    assert len(lines) == 1 and stderr.endswith("\n"), "%s: expected one line, got %r" % (
        what, stderr)
    line = lines[0]
    assert line.startswith(ERROR_PREFIX), "%s: %r" % (what, line)
    assert acceptable, "%s: no known problem explains this error case: %r" % (what, line)
    assert any(all(f in line for f in frags) for frags in acceptable), (
        "%s: the error line names none of %r: %r" % (what, acceptable, line))
    return line


def close(got, expected, what):
    if expected == "NaN":
        assert isinstance(got, float) and math.isnan(got), "%s: want NaN, got %r" % (what, got)
        return
    assert abs(got - expected) <= PER_EXAMPLE_TOL, "%s: want %r, got %r" % (
        what, expected, got)


def check_pred_fields(case):
    """The case's data is consistent: the written prediction has exactly pred_fields."""
    preds = parsed_side(case["pred"], case["pred"]["records"])
    have = {f for f in LABEL_FIELDS if preds and all(f in p for p in preds)}
    assert have == set(case["pred_fields"]), (case["case_id"], have, case["pred_fields"])


def check_ok(case, tmp_path: Path, ref_sets=None):
    """Valid case: OUT == printed byte for byte, exit 0, silent; per-example within 1e-9."""
    ref, pred = write_case(case, tmp_path, ref_sets)
    out = tmp_path / "out.txt"
    status, stdout, stderr = run_cli(["mushroom", ref, pred, out])
    expected = case["expected"]
    assert (status, stdout, stderr) == (0, "", ""), (status, stdout, stderr)
    assert out.read_bytes() == expected["printed"].encode("utf-8")
    result = score_files(ref, pred)
    rows = expected["per_example"]
    assert [str(i) for i in result.ids] == [str(row["id"]) for row in rows]
    for i, iou, cor, row in zip(result.ids, result.iou, result.cor, rows):
        close(iou, row["iou"], "%s iou" % i)
        close(cor, row["cor"], "%s cor" % i)
    assert result.printed == expected["printed"]
    _check_derived(case)
    if "raw_lines" in case["pred"] or "raw_lines" in case["ref"]:
        check_exact_reading(case, tmp_path / "exact", ref_sets)


def _check_derived(case):
    derived = case["expected"].get("derived_pred_labels")
    if derived is None:
        return
    preds = {str(p["id"]): p for p in parsed_side(case["pred"], case["pred"]["records"])}
    for row in derived:
        p = preds[str(row["id"])]
        if "hard_labels" not in case["pred_fields"]:
            assert derive_hard_labels(p["soft_labels"]) == row["hard_labels"], row["id"]
        if "soft_labels" not in case["pred_fields"]:
            assert derive_soft_labels(p["hard_labels"]) == row["soft_labels"], row["id"]


def check_rejected(case, tmp_path: Path, ref_sets=None):
    """Error / invalid case: exit 1, no OUT, one line naming file, id and field."""
    ref, pred = write_case(case, tmp_path, ref_sets)
    out = tmp_path / "out.txt"
    status, stdout, stderr = run_cli(["mushroom", ref, pred, out])
    assert status == 1, (status, stdout, stderr)
    assert stdout == "" and not out.exists()
    assert_one_error_line(stderr, problems(case, ref, pred, ref_sets), case["case_id"])


def check_exact_reading(case, tmp_path: Path, ref_sets=None):
    """``--float-parse exact``: the result of the exactly parsed records (`reference_score`),
    which differs from the official output exactly for the `FLOAT_TEXT_CASES`."""
    tmp_path.mkdir(exist_ok=True)
    ref, pred = write_case(case, tmp_path, ref_sets)
    out = tmp_path / "out.txt"
    status, stdout, stderr = run_cli(["mushroom", "--float-parse", "exact", ref, pred, out])
    assert (status, stdout, stderr) == (0, "", "")
    want = reference_score(parsed_side(case["ref"], ref_records(case, ref_sets), "exact"),
                           parsed_side(case["pred"], case["pred"]["records"], "exact"))
    assert out.read_text("utf-8") == want["printed"]
    result = score_files(ref, pred, float_parse="exact")
    assert [str(i) for i in result.ids] == [str(i) for i in want["ids"]]
    for got, exp in zip(result.iou + result.cor, want["iou"] + want["cor"]):
        close(got, "NaN" if math.isnan(exp) else exp, case["case_id"])
    if case["case_id"] in FLOAT_TEXT_CASES:  # a stale entry fails rather than hides
        assert want["printed"] != case["expected"]["printed"], case["case_id"]


CHECKS = {"ok": check_ok, "error": check_rejected, "invalid": check_rejected}


def check_case(case, tmp_path: Path, ref_sets=None) -> str:
    check_pred_fields(case)
    category = classify(case, ref_sets)
    CHECKS[category](case, tmp_path, ref_sets)
    return category


# -------------------------------------------- independent exact-float reference scorer

def reference_score(refs: list[dict], preds: list[dict]) -> dict:
    """The official scorer's rules in plain Python on parsed records (no pandas).

    Used for the exact reading (``--float-parse exact``) and as an independent check of
    the semantics tests. Assumes valid, paired input.
    """
    by_id = {_key(p["id"]): p for p in preds}
    keys = [_key(r["id"]) for r in refs]
    if keys and all(_is_int(k) for k in keys):
        order = sorted(range(len(refs)), key=lambda i: int(keys[i]))
    else:
        order = sorted(range(len(refs)), key=lambda i: keys[i])
    has_hard = all("hard_labels" in p for p in preds)
    has_soft = all("soft_labels" in p for p in preds)
    ids, ious, cors = [], [], []
    for i in order:
        r, p = refs[i], by_id[keys[i]]
        hard = p["hard_labels"] if has_hard else ref_derive_hard(p["soft_labels"])
        soft = p["soft_labels"] if has_soft else [
            {"start": s, "end": e, "prob": 1.0} for s, e in p["hard_labels"]]
        n = len(r["model_output_text"])
        ids.append(r["id"])
        ious.append(ref_iou(r["hard_labels"], hard))
        cors.append(ref_cor(ref_vector(r["soft_labels"], n), ref_vector(soft, n)))
    iou_mean, cor_mean = float(np.mean(ious)), float(np.mean(cors))
    return {"ids": ids, "iou": ious, "cor": cors, "iou_mean": iou_mean,
            "cor_mean": cor_mean, "printed": "IoU: %.8f\nCor: %.8f\n" % (iou_mean, cor_mean)}


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def ref_derive_hard(soft):
    out, prev_end = [], None
    for span in sorted((s for s in soft if s["prob"] > 0.5), key=lambda s: (s["start"], s["end"])):
        if out and span["start"] == prev_end:
            out[-1][1] = span["end"]
        else:
            out.append([span["start"], span["end"]])
        prev_end = span["end"]
    return out


def ref_iou(ref_hard, pred_hard) -> float:
    a = {i for s, e in ref_hard for i in range(s, e)}
    b = {i for s, e in pred_hard for i in range(s, e)}
    return 1.0 if not a and not b else len(a & b) / len(a | b)


def ref_vector(soft, n: int) -> list[float]:
    vec = [0.0] * n
    for span in soft:  # last writer wins
        for i in range(span["start"], span["end"]):
            vec[i] = float(span["prob"])
    return vec


def ref_average_ranks(x: list[float]) -> list[float]:
    order = sorted(range(len(x)), key=lambda i: x[i])
    ranks = [0.0] * len(x)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return ranks


def ref_cor(a: list[float], b: list[float]) -> float:
    if not a:
        return math.nan
    const_a = len({round(x, 8) for x in a}) == 1
    const_b = len({round(x, 8) for x in b}) == 1
    if const_a or const_b:
        return float(const_a == const_b)
    ra, rb = ref_average_ranks(a), ref_average_ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / math.sqrt(va * vb)


def env_dir(name: str):
    """(directory, None) from an environment variable, or (None, reason to skip)."""
    value = os.environ.get(name, "")
    if not value:
        return None, "%s is not set" % name
    if not os.path.isdir(value):
        return None, "%s=%r is not a directory" % (name, value)
    return Path(value).resolve(), None
