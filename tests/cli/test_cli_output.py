"""The ``table`` format prints every group on its own row under a key that says which
group it is; ``--output`` refuses extensions it cannot tell a format from."""

from __future__ import annotations

import pandas as pd
import pytest
from cli_data import write_jsonl
from test_cli_errors import SPANS, run

from mycelium.cli.output import format_table, key_cells


def result(keys, dtype=object) -> pd.DataFrame:
    n = len(keys)
    return pd.DataFrame({"k": pd.Series(keys, dtype=dtype), "metric": ["iou"] * n,
                         "measure": ["score"] * n, "value": [i / 4 for i in range(n)],
                         "examples": [1] * n, "average": ["macro"] * n, "profile": [None] * n})


def key_column(table: str) -> list[str]:
    return [line.split()[0] for line in table.splitlines()[2:]]


def test_keys_that_print_alike_stay_apart():
    table = format_table(result([None, "<null>", 1, "1"]), by=["k"])
    assert key_column(table) == ["<null>", '"<null>"', "1", '"1"']
    assert [line.split()[2] for line in table.splitlines()[2:]] == [
        "0.0000", "0.2500", "0.5000", "0.7500"]


def test_groups_are_rows_even_when_their_keys_print_alike():
    # Two groups whose keys compare equal in the result (e.g. rounded by a float column)
    # stay two rows: rows follow the records, never a lookup by key.
    frame = pd.concat([result([2.0**53, 2.0**53]).assign(measure=m) for m in ("a", "b")])
    frame = frame.sort_index(kind="stable").reset_index(drop=True)
    lines = format_table(frame, by=["k"]).splitlines()[2:]
    assert [line.split()[2:4] for line in lines] == [["0.0000", "0.0000"],
                                                     ["0.2500", "0.2500"]]


def test_plain_keys_print_plainly():
    assert key_cells(pd.Series(["en", None, "de"])) == ["en", "<null>", "de"]
    assert key_cells(pd.Series([3, None, 2**53 + 1], dtype="Int64")) == [
        "3", "<null>", str(2**53 + 1)]
    assert key_cells(pd.Series(["", " en", "en"])) == ['""', '" en"', '"en"']
    assert key_cells(pd.Series([1, 1.0, True], dtype=object)) == ["1", "1.0", "True"]


def test_interval_table_keys_are_unambiguous():
    frame = result([None, "<null>"]).assign(ci_low=0.0, ci_high=1.0)
    assert key_column(format_table(frame, by=["k"])) == ["<null>", '"<null>"']


def test_null_and_the_string_null_through_the_command(capsys, tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", [
        {"k": "<null>", "ref": [[0, 1]], "pred": [[0, 1]]},
        {"k": None, "ref": [], "pred": [[0, 1]]}])
    code, out, err = run(capsys, "evaluate", path, *SPANS, "--by", "k", "--metrics", "iou")
    assert (code, err) == (0, "")
    rows = [line.split()[:3] for line in out.split("\n\n")[0].splitlines()[2:]]
    assert sorted(rows) == [['"<null>"', "iou", "1.0000"], ["<null>", "iou", "0.0000"]]


@pytest.mark.parametrize("name", ["out.xlsx", "out.jsonl", "scores.v2"])
def test_unknown_output_extensions_are_refused(capsys, files, tmp_path, name):
    code, out, err = run(capsys, "evaluate", files["jsonl"], *SPANS, "-o", tmp_path / name)
    assert (code, out) == (2, "")
    suffix = name[name.rindex("."):]
    assert (f"cannot tell the output format of '{tmp_path / name}' from its extension "
            f"'{suffix}'; expected .txt (table), .csv (csv), .json (json), .parquet "
            "(parquet), .pq (parquet) or no extension (table); fix by renaming the file or "
            "giving --format.") in err
    assert not (tmp_path / name).exists()
    code, _, err = run(capsys, "evaluate", files["jsonl"], *SPANS, "-o", tmp_path / name,
                       "--format", "csv")
    assert (code, err) == (0, "")
    assert (tmp_path / name).read_text("utf-8").startswith("metric,measure,value,")


@pytest.mark.parametrize("name, first", [("out.txt", "metric"), ("out", "metric"),
                                         ("out.csv", "metric,measure")])
def test_known_output_extensions(capsys, files, tmp_path, name, first):
    code, _, err = run(capsys, "evaluate", files["jsonl"], *SPANS, "-o", tmp_path / name)
    assert (code, err) == (0, "")
    assert (tmp_path / name).read_text("utf-8").startswith(first)
