"""`mycelium rank`: the rule (1 + ranked rows strictly greater at printed precision,
baselines not ranked) against a slow obvious reference, on every published table, and on
the 33 real submissions that are their team's published IoU row."""

from __future__ import annotations

import csv
import json
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mycelium.cli.app as app
from mycelium.datasets import add, leaderboard, round_printed
from mycelium.datasets.references import reference_tables
from mycelium.protocols import faithbench as fb
from mycelium.protocols.rank import rank_faithbench, rank_mushroom, rank_value
from tests._data_dirs import FAITHBENCH_ENV, SYSTEMS_ENV, data_folder

@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh ``MYCELIUM_DATA_DIR`` (never the user's cache)."""
    monkeypatch.setenv("MYCELIUM_DATA_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


TABLES = [(t["lang"], t["metric"]) for t in reference_tables() if t["benchmark"] == "mu_shroom"]


def _slow_rank(value, rows):
    """Count, row by row, the ranked rows that print a larger number than the submission
    would be printed with."""
    better = 0
    for row in rows:
        if row.baseline:
            continue
        digits = row.precision.get("significant")
        mine = float(f"{value:.{digits}g}") if digits else round(value, row.precision["decimals"])
        better += float(row.printed) > mine
    return better + 1


def test_the_mushroom_tables_are_complete():
    assert Counter(m for _, m in TABLES) == {"iou": 14, "cor": 14}
    en = leaderboard("mu_shroom", "en", "iou")
    assert sum(not r.baseline for r in en) == 41 and sum(r.baseline for r in en) == 3
    assert {r.source for r in en} == {"https://github.com/Helsinki-NLP/shroom/blob/"
                                      "6698b8b16b7300f9f234a024141365311221a6cd/2025/"
                                      "iou_rankings.md"}
    with pytest.raises(KeyError, match="Expected a published table"):
        leaderboard("mu_shroom", "xx", "iou")


@pytest.mark.parametrize("lang, metric", TABLES)
def test_each_published_value_gets_its_published_rank_unless_tied(lang, metric):
    rows = leaderboard("mu_shroom", lang, metric)
    counts = Counter(r.printed for r in rows)
    for row in rows:
        if row.baseline or counts[row.printed] > 1:
            continue  # tied rows share the better rank under the rule; the board numbers them
        assert rank_value(row.value, rows)[0] == row.published_rank, row


def test_ties_share_the_better_rank():
    rows = leaderboard("mu_shroom", "es", "cor")
    tied = [r for r in rows if r.printed == "0.0131579"]
    assert [r.published_rank for r in tied if not r.baseline] == [29, 30, 31]
    assert rank_value(0.01315789, rows)[0] == 29  # rounds to the tie: the tie's best rank


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(TABLES), st.floats(-1.0, 1.0, allow_nan=False))
def test_rank_matches_the_slow_reference_and_is_monotone(table, value):
    rows = leaderboard("mu_shroom", *table)
    rank, of, above, below = rank_value(value, rows)
    assert rank == _slow_rank(value, rows)
    assert of == sum(not r.baseline for r in rows) + 1
    assert rank_value(value + 0.01, rows)[0] <= rank
    if above is not None:
        assert float(above.printed) > round_printed(value, above.precision)
    if below is not None:
        assert not float(below.printed) > round_printed(value, below.precision)


def _systems():
    folder, why = data_folder(SYSTEMS_ENV)
    if folder is None:
        pytest.skip(why)
    with open(folder / "MANIFEST.csv", encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if "IoU" in r["leaderboard_rows"]]
    return folder, rows


def test_the_33_published_iou_submissions_get_their_published_rank(mushroom_dir, cache):
    folder, rows = _systems()
    assert len(rows) == 33
    add("mu_shroom", mushroom_dir, link=True)
    for row in rows:
        published = {r.team: r for r in leaderboard("mu_shroom", row["lang"], "iou")}
        result = rank_mushroom(folder / row["file"], row["lang"], n_resamples=50)
        assert result.rank == published[row["team"]].published_rank, row["file"]
        printed = float(published[row["team"]].printed)
        assert round_printed(result.value, {"significant": 6}) == printed


def test_the_cli_prints_each_published_rank(mushroom_dir, cache, capsys):
    folder, rows = _systems()
    add("mu_shroom", mushroom_dir, link=True)
    for row in rows:
        team_rank = {r.team: r.published_rank
                     for r in leaderboard("mu_shroom", row["lang"], "iou")}[row["team"]]
        assert app.main(["rank", str(folder / row["file"]), "--benchmark", "mu_shroom",
                         "--lang", row["lang"], "--n-resamples", "20"]) == 0
        out = capsys.readouterr().out
        assert f"\nrank {team_rank} of " in out, (row["file"], out[-600:])
        assert f">> {team_rank:>4}  (your submission)" in out


def test_json_keys_interval_and_seed(mushroom_dir, cache, capsys):
    folder, _ = _systems()
    add("mu_shroom", mushroom_dir, link=True)
    pred = str(folder / "UZH" / "en.jsonl")
    assert app.main(["rank", pred, "--lang", "en", "--format", "json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert list(first) == ["rank", "of", "value", "interval", "above", "below", "signature"]
    assert (first["rank"], first["of"]) == (14, 42)
    assert first["above"]["team"] == "DeepPavlov" and first["below"]["team"] == "UZH"
    low, high = first["interval"]
    assert 1 <= low <= first["rank"] <= high <= 42
    assert "seed:0" in first["signature"] and "n_resamples:1000" in first["signature"]
    assert "dataset:mu_shroom@sha256:758df17a159b" in first["signature"]
    assert app.main(["rank", pred, "--lang", "en", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == first  # the seed alone decides
    cor_best = str(folder / "UZH" / "en.cor_best.jsonl")  # UZH's row of the Cor board
    assert app.main(["rank", cor_best, "--lang", "en", "--by", "cor", "--format", "json",
                     "--seed", "3"]) == 0
    cor = json.loads(capsys.readouterr().out)
    published = {r.team: r for r in leaderboard("mu_shroom", "en", "cor")}
    assert cor["rank"] == published["UZH"].published_rank
    assert "seed:3" in cor["signature"] and not math.isnan(cor["value"])


def test_rank_without_a_registered_copy_says_how_to_add_it(tmp_path, cache, capsys):
    pred = tmp_path / "p.jsonl"
    pred.write_text('{"id": "a", "hard_labels": []}\n', encoding="utf-8")
    assert app.main(["rank", str(pred), "--lang", "en"]) == 1
    assert "mycelium data add mu_shroom PATH" in capsys.readouterr().err


# ------------------------------------------------------------------------ FaithBench

def _faithbench():
    folder, why = data_folder(FAITHBENCH_ENV)
    if folder is None:
        pytest.skip(why)
    return folder


def _write_predictions(path, items, detector):
    """The detector's own predictions as a user would submit them (scores for HHEM)."""
    column = "score" if detector in fb.SCORE_DETECTORS else "prediction"
    with open(path, "w", encoding="utf-8") as fh:
        for b, s, v in zip(items["batch"], items["sample_id"], items[detector]):
            if np.isnan(v) or (column == "prediction" and v not in (0, 1)):
                continue  # no prediction: the paper scores the item as wrong
            value = float(v) if column == "score" else int(v)
            fh.write(json.dumps({"batch": int(b), "sample_id": int(s), column: value}) + "\n")


def test_faithbench_table_is_bundled_with_its_source():
    rows = leaderboard("faithbench", "en", "balanced_accuracy", split="paper_worst")
    assert len(rows) == 21 and not any(r.baseline for r in rows)
    best = max(rows, key=lambda r: r.value)
    assert (best.team, best.printed) == ("Ragas-GPT-4o", "62.31")
    assert {r.detector for r in rows if r.detector} == set(fb.DETECTORS) - {"gpt-3.5-turbo"}
    assert rows[0].source.endswith("/0497b6db9c3c52bc9aabb0cd046e8ac815edbd13/eval/"
                                   "eval_detectors.ipynb")


@pytest.mark.parametrize("pooling", ["worst", "best"])
@pytest.mark.parametrize("by", ["balanced_accuracy", "f1_macro"])
def test_each_published_detector_ranks_where_its_number_puts_it(tmp_path, by, pooling):
    folder = _faithbench()
    items = fb.read_items(folder, "companion")
    rows = leaderboard("faithbench", "en", by, split=f"paper_{pooling}")
    for row in (r for r in rows if r.detector):
        path = tmp_path / f"{row.detector}.jsonl"
        _write_predictions(path, items, row.detector)
        result = rank_faithbench(path, by=by, pooling=pooling, reference=folder,
                                 n_resamples=0)
        assert f"{result.value * 100:.2f}" == row.printed, row.team
        assert result.rank == 1 + sum(float(r.printed) > float(row.printed) for r in rows)
        assert result.of == 22


def test_faithbench_cli_and_a_registered_copy(tmp_path, cache, capsys):
    folder = _faithbench()
    add("faithbench", folder, link=True)
    path = tmp_path / "gpt4o.jsonl"
    _write_predictions(path, fb.read_items(folder, "companion"), "gpt_4o")
    assert app.main(["rank", str(path), "--benchmark", "faithbench", "--format", "json",
                     "--n-resamples", "200"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["rank"], got["of"]) == (7, 22)
    assert got["above"]["team"] == "O3-Mini, FACTS"
    assert got["below"]["team"] == "GPT-4o, zero-shot"
    low, high = got["interval"]
    assert 1 <= low <= 7 <= high <= 22
    assert "missing_predictions:0" in got["signature"] and "pooling:worst" in got["signature"]
    # a prediction file with half the items: the rest is scored wrong, and says so
    half = tmp_path / "half.jsonl"
    half.write_text("".join(path.read_text().splitlines(keepends=True)[::2]))
    assert app.main(["rank", str(half), "--benchmark", "faithbench", "--format", "json",
                     "--n-resamples", "0"]) == 0
    assert "missing_predictions:3" in json.loads(capsys.readouterr().out)["signature"]


def test_faithbench_predictions_are_checked(tmp_path):
    folder = _faithbench()
    bad = tmp_path / "bad.csv"
    bad.write_text("batch,sample_id,prediction\n1,0,2\n")
    with pytest.raises(ValueError, match=r"Expected prediction 0 or 1, got 2.*row 1"):
        rank_faithbench(bad, reference=folder)
    bad.write_text("batch,sample_id,prediction\n1,0,1\n1,0,0\n")
    with pytest.raises(ValueError, match="batch 1 sample_id 0 twice"):
        rank_faithbench(bad, reference=folder)
    bad.write_text("batch,sample_id,prediction\n99,0,1\n")
    with pytest.raises(ValueError, match="batch 99 sample_id 0"):
        rank_faithbench(bad, reference=folder)
