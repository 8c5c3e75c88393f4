"""``mycelium evaluate`` with score columns (SPEC section 9): the numbers equal
`mycelium.evaluate` on the same data, from JSON lines, CSV (JSON strings) and Parquet
(Arrow lists); usage and data errors name the flag, the file and the row."""

import json
import math

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import mycelium
from mycelium.cli.app import main
from cli_data import write_csv, write_jsonl

ROWS = [
    {"id": "a", "lang": "en", "text": "abcdefgh", "ref": [[2, 6]],
     "offs": [[0, 2], [2, 4], [4, 6], [6, 8]], "scores": [0.1, 0.9, 0.6, 0.2],
     "soft": [{"start": 0, "end": 3, "prob": 0.3}, {"start": 3, "end": 6, "prob": 0.8}]},
    {"id": "b", "lang": "fi", "text": "abcdef", "ref": [],
     "offs": [[0, 3], [3, 6]], "scores": [0.7, 0.2],
     "soft": [{"start": 1, "end": 4, "prob": 0.6}]},
    {"id": "c", "lang": "en", "text": "0123456789", "ref": [[0, 3], [7, 10]],
     "offs": [[0, 1], [1, 5], [5, 7], [7, 10]], "scores": [0.5, 0.4, 0.05, 0.95],
     "soft": [{"start": 0, "end": 10, "prob": 0.4}, {"start": 8, "end": 9, "prob": 0.9}]},
]
TOKENS = ["--token-offsets-col", "offs", "--token-scores-col", "scores"]
COMMON = ["--ref-col", "ref", "--text-col", "text"]
SCORE_METRICS = ["char_auroc", "char_ap", "response_auroc"]


def _write_parquet(path, rows):
    columns = {c: pa.array([r[c] for r in rows]) for c in rows[0] if c != "ref"}
    columns["ref"] = mycelium.to_spans([r["ref"] for r in rows])
    pq.write_table(pa.table(columns), path)
    return path


WRITERS = {"jsonl": write_jsonl, "csv": write_csv, "parquet": _write_parquet}


@pytest.fixture(params=sorted(WRITERS))
def scored(request, tmp_path):
    kind = request.param
    return str(WRITERS[kind](tmp_path / f"scores.{kind}", ROWS))


def _col(name):
    return [r[name] for r in ROWS]


def _records(capsys, argv):
    code = main(["evaluate", *argv, "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    doc = json.loads(captured.out)
    return {(r["metric"], r["measure"]): r for r in doc["records"]}, doc["signature"]


def _same(a, b):
    return (a is None and math.isnan(b)) or a == b


@pytest.mark.parametrize("average", ["macro", "micro"])
def test_token_scores_equal_the_function(scored, capsys, average):
    got, signature = _records(capsys, [scored, *COMMON, *TOKENS, "--average", average,
                                       "--metrics", ",".join(SCORE_METRICS)])
    want = mycelium.evaluate(_col("ref"), text=_col("text"), token_offsets=_col("offs"),
                             token_scores=_col("scores"), metrics=SCORE_METRICS,
                             average=average)
    for m in SCORE_METRICS:
        assert _same(got[(m, "score")]["value"], want[m]["score"])
    assert got[("char_auroc", "score")]["value"] == pytest.approx(
        want["char_auroc"]["score"], abs=0)
    assert signature == want["meta"]["signature"]


def test_soft_scores_equal_the_function(scored, capsys):
    got, _ = _records(capsys, [scored, *COMMON, "--soft-pred-col", "soft",
                               "--metrics", "char_auroc,char_ap"])
    want = mycelium.evaluate(_col("ref"), text=_col("text"),
                             soft_predictions=_col("soft"), metrics=["char_auroc", "char_ap"])
    assert got[("char_auroc", "score")]["value"] == want["char_auroc"]["score"]
    assert got[("char_ap", "score")]["value"] == want["char_ap"]["score"]


def test_threshold_spans_are_the_predictions(scored, capsys):
    got, signature = _records(capsys, [scored, *COMMON, *TOKENS, "--threshold", "0.5",
                                       "--metrics", "iou,character,response_level"])
    want = mycelium.evaluate(_col("ref"), text=_col("text"), token_offsets=_col("offs"),
                             token_scores=_col("scores"), threshold=0.5,
                             metrics=["iou", "character", "response_level"])
    for metric in ("iou", "character", "response_level"):
        for measure, value in want[metric].items():
            assert got[(metric, measure)]["value"] == value, (metric, measure)
    assert "|threshold:0.5" in signature and signature == want["meta"]["signature"]


def test_scores_by_group_from_a_second_file(tmp_path, capsys):
    refs = write_jsonl(tmp_path / "refs.jsonl", [{k: r[k] for k in ("id", "ref", "text",
                                                                     "lang")} for r in ROWS])
    preds = write_csv(tmp_path / "preds.csv", [{k: r[k] for k in ("id", "offs", "scores")}
                                               for r in reversed(ROWS)])
    code = main(["evaluate", str(refs), str(preds), *COMMON, *TOKENS, "--id-col", "id",
                 "--by", "lang", "--metrics", "char_auroc", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    en = [r for r in ROWS if r["lang"] == "en"]
    want = mycelium.evaluate([r["ref"] for r in en], text=[r["text"] for r in en],
                             token_offsets=[r["offs"] for r in en],
                             token_scores=[r["scores"] for r in en], metrics=["char_auroc"])
    (row,) = [r for r in doc["records"] if r["lang"] == "en"]
    assert row["value"] == want["char_auroc"]["score"]


@pytest.mark.parametrize("extra, fragment", [
    ([], "give the predictions: --pred-col (predicted spans), or scores with "
         "--soft-pred-col or --token-offsets-col and --token-scores-col"),
    ([*TOKENS, "--threshold", "0.5", "--pred-col", "ref"],
     "--pred-col and --threshold exclude each other"),
    (["--threshold", "0.5", "--pred-col", "ref"], "--pred-col and --threshold exclude"),
    (["--token-offsets-col", "offs"], "--token-offsets-col and --token-scores-col go "
                                      "together"),
    ([*TOKENS, "--soft-pred-col", "soft"], "give one score form"),
    ([*TOKENS, "--threshold", "1.5"], "argument --threshold: expected a threshold in "
                                      "[0, 1], e.g. 0.5, got '1.5'"),
])
def test_usage_errors(tmp_path, capsys, extra, fragment):
    path = str(write_jsonl(tmp_path / "s.jsonl", ROWS))
    assert main(["evaluate", path, *COMMON, *extra]) == 2
    assert fragment in capsys.readouterr().err


def test_scores_need_text(tmp_path, capsys):
    path = str(write_jsonl(tmp_path / "s.jsonl", ROWS))
    assert main(["evaluate", path, "--ref-col", "ref", *TOKENS]) == 2
    assert "scores need --text-col" in capsys.readouterr().err


def test_bad_cells_are_named_by_flag_file_and_row(tmp_path, capsys):
    rows = [dict(r) for r in ROWS]
    rows[1]["scores"] = [0.7]  # one score for two tokens
    path = write_jsonl(tmp_path / "bad.jsonl", rows)
    assert main(["evaluate", str(path), *COMMON, *TOKENS]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"mycelium: error: REFS {path}, row 2, column 'scores' "
                          "(--token-scores-col): Expected one score per token (2 tokens), "
                          "got 1 scores"), err
    rows = [dict(r) for r in ROWS]
    rows[2]["offs"] = [[0, 1], [1, 5], [5, 7], [7, 11]]  # past the text
    path = write_jsonl(tmp_path / "out.jsonl", rows)
    assert main(["evaluate", str(path), *COMMON, *TOKENS]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"mycelium: error: REFS {path}, row 3, column 'offs' "
                          "(--token-offsets-col), token 4: Expected 0 <= start <= end <= "
                          "len(text) = 10, got [7, 11)"), err


def test_a_cell_that_is_not_json_is_named(tmp_path, capsys):
    path = write_csv(tmp_path / "s.csv", ROWS)
    text = path.read_text(encoding="utf-8").replace('"[0.7, 0.2]"', '"[0.7, oops]"')
    path.write_text(text, encoding="utf-8")
    for command in ("evaluate", "sweep"):
        assert main([command, str(path), *COMMON, *TOKENS]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"mycelium: error: REFS {path}, row 2, column 'scores' "
                              "(--token-scores-col): Expected a JSON list, got "
                              "'[0.7, oops]'"), err
        assert "fix by writing the cell as JSON, e.g. [0.1, 0.9]." in err


def test_sweep_reads_csv_json_strings(tmp_path, capsys):
    path = write_csv(tmp_path / "s.csv", ROWS)
    assert main(["sweep", str(path), *COMMON, *TOKENS, "--thresholds", "0.5",
                 "--metrics", "iou", "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["records"]
    want = mycelium.evaluate(_col("ref"), text=_col("text"), token_offsets=_col("offs"),
                             token_scores=_col("scores"), threshold=0.5, metrics=["iou"])
    assert row["value"] == want["iou"]["score"]


def test_token_scores_beside_soft_spearman(tmp_path, capsys):
    rows = [dict(r, soft_ref=r["soft"]) for r in ROWS]
    path = str(write_jsonl(tmp_path / "s.jsonl", rows))
    got, _ = _records(capsys, [path, *COMMON, *TOKENS, "--soft-ref-col", "soft_ref",
                               "--soft-pred-col", "soft", "--threshold", "0.5",
                               "--metrics", "soft_spearman,char_auroc,iou"])
    want = mycelium.evaluate(_col("ref"), text=_col("text"), token_offsets=_col("offs"),
                             token_scores=_col("scores"), threshold=0.5,
                             soft_references=_col("soft"), soft_predictions=_col("soft"),
                             metrics=["soft_spearman", "char_auroc", "iou"])
    for metric in ("soft_spearman", "char_auroc", "iou"):
        assert got[(metric, "score")]["value"] == want[metric]["score"], metric
