"""The study's vectorised span operations against brute force, and its command's errors
(no data needed)."""

from __future__ import annotations

import random

import numpy as np

from validation.flat import Flat, coverage, merge
from validation.run import main


def _random_flat(rng: random.Random, n: int) -> Flat:
    rows, starts, ends = [], [], []
    for r in range(n):
        for _ in range(rng.randint(0, 4)):
            s = rng.randint(0, 30)
            rows.append(r)
            starts.append(s)
            ends.append(s + rng.randint(1, 8))
    return Flat.build(n, rows, starts, ends)


def _chars(spans):
    return {i for s, e in spans for i in range(s, e)}


def test_merge_equals_character_sets():
    rng = random.Random(0)
    for _ in range(50):
        flat = _random_flat(rng, 6)
        merged = merge(flat, adjacent=True)
        for before, after in zip(flat.lists(), merged.lists()):
            assert _chars(before) == _chars(after)
            # disjoint and not touching, sorted
            assert all(a[1] < b[0] for a, b in zip(after, after[1:]))


def test_coverage_equals_brute_force_vote():
    rng = random.Random(1)
    for _ in range(50):
        voters = merge(_random_flat(rng, 9), adjacent=True)
        group = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
        threshold = np.array([1.5, 0.5, 1.0])
        major, segments, counts = coverage(voters, 3, group, threshold)
        lists = voters.lists()
        for g in range(3):
            votes = {}
            for r in np.flatnonzero(group == g):
                for i in _chars(lists[r]):
                    votes[i] = votes.get(i, 0) + 1
            assert _chars(major.lists()[g]) == {i for i, v in votes.items()
                                                if v > threshold[g]}
        per_char = {}
        for r, s, e, c in zip(segments.row, segments.start, segments.end, counts):
            for i in range(s, e):
                per_char[(int(r), i)] = int(c)
        brute = {}
        for r, spans in enumerate(lists):
            for i in _chars(spans):
                brute[(int(group[r]), i)] = brute.get((int(group[r]), i), 0) + 1
        assert per_char == brute


def test_take_copies_rows():
    flat = Flat.build(3, [0, 2, 2], [1, 5, 9], [2, 7, 12])
    assert flat.take([2, 0, 2, 1]).lists() == [[(5, 7), (9, 12)], [(1, 2)],
                                               [(5, 7), (9, 12)], []]


def test_no_data_directory_is_a_usage_error(monkeypatch, capsys):
    monkeypatch.delenv("MYCELIUM_MUSHROOM_DIR", raising=False)
    assert main(["--no-figures"]) == 2
    assert "MYCELIUM_MUSHROOM_DIR" in capsys.readouterr().err


def test_missing_directory_and_files_are_data_errors(tmp_path, capsys):
    assert main(["--data", str(tmp_path / "nope"), "--no-figures"]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert main(["--data", str(tmp_path), "--no-figures"]) == 1
    assert "splits/val/v2" in capsys.readouterr().err


def test_unknown_language_is_named(mushroom_dir, tmp_path, capsys):
    code = main(["--data", str(mushroom_dir), "--languages", "en,xx", "--out",
                 str(tmp_path), "--no-figures"])
    assert code == 1
    assert "['XX']" in capsys.readouterr().err


def test_figures_without_matplotlib_are_a_usage_error(monkeypatch, tmp_path, capsys):
    import validation.run as run

    monkeypatch.setattr(run, "_have_matplotlib", lambda: False)
    assert main(["--data", str(tmp_path)]) == 2
    assert "--no-figures" in capsys.readouterr().err
