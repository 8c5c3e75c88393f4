"""``mycelium sweep``: the curve of a file of detector scores, equal to mycelium.sweep."""

import json

import mycelium
from mycelium.cli.app import main

ROWS = [
    {"id": 1, "lang": "en", "text": "abcdefgh", "ref": [[2, 6]],
     "offs": [[0, 2], [2, 4], [4, 6], [6, 8]], "scores": [0.1, 0.9, 0.6, 0.2]},
    {"id": 2, "lang": "fi", "text": "abcdef", "ref": [],
     "offs": [[0, 3], [3, 6]], "scores": [0.7, 0.2]},
]


def _file(tmp_path):
    path = tmp_path / "scores.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return str(path)


def test_sweep_json_equals_the_function(tmp_path, capsys):
    code = main(["sweep", _file(tmp_path), "--ref-col", "ref", "--text-col", "text",
                 "--token-offsets-col", "offs", "--token-scores-col", "scores",
                 "--metrics", "iou,response_level", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    want = mycelium.sweep([r["ref"] for r in ROWS], text=[r["text"] for r in ROWS],
                          token_offsets=[r["offs"] for r in ROWS],
                          token_scores=[r["scores"] for r in ROWS],
                          metrics=["iou", "response_level"])
    got = [(r["threshold"], r["metric"], r["measure"], r["value"]) for r in out["records"]]
    assert got == list(zip(want["threshold"], want["metric"], want["measure"], want["value"]))
    assert "|scores:token|thresholds:6" in out["signature"]  # 0 and 5 distinct scores


def test_sweep_table_by_group_and_usage_errors(tmp_path, capsys):
    code = main(["sweep", _file(tmp_path), "--ref-col", "ref", "--text-col", "text",
                 "--token-offsets-col", "offs", "--token-scores-col", "scores",
                 "--by", "lang", "--thresholds", "0.5", "--metrics", "iou"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[0].split() == ["lang", "threshold", "metric", "score",
                                           "examples", "average", "profile"]
    assert main(["sweep", _file(tmp_path), "--ref-col", "ref", "--text-col", "text"]) == 2
    assert "give the scores" in capsys.readouterr().err
