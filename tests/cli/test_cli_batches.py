"""``mycelium evaluate`` of one JSON-lines file in batches (`mycelium.cli.stream`): the
output bytes of every format equal the in-memory path's on a file of many batches, and a
bad row in a late batch is told by its line as the in-memory path tells it."""

from __future__ import annotations

import random

import pytest
from cli_data import write_jsonl

from mycelium.cli import evaluate as cli_evaluate
from mycelium.cli import read, stream
from mycelium.cli.app import main
from mycelium.errors import SpanValidationError

N = 1500


def rows(n: int = N, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        text = "".join(rng.choice("ab cd.ef ") for _ in range(rng.randint(5, 60)))

        def spans():
            got = []
            for _ in range(rng.randint(0, 4)):
                s = rng.randint(0, len(text) - 1)
                got.append([s, rng.randint(s, len(text))])
            return got

        out.append({"id": i, "model": rng.choice(["m1", "m2", None]),
                    "k": rng.choice([1, 2, 3]), "text": text, "ref": spans(),
                    "pred": spans() if rng.random() > 0.05 else None})
    return out


@pytest.fixture
def small_batches(monkeypatch):
    """Blocks of 4 KiB (some 120 rows) gathered into batches of at least 200 rows: a file
    of 1,500 rows spans a dozen blocks and six batches. Counts the rows of each batch."""
    monkeypatch.setattr(read, "_BLOCK_BYTES", 4096)
    monkeypatch.setattr(stream, "_BATCH_ROWS", 200)
    scored = []
    score = stream._score
    monkeypatch.setattr(stream, "_score", lambda blocks, *a: (
        scored.append(sum(b.num_rows for b in blocks)), score(blocks, *a)))
    return scored


def output(capsys, tmp_path, monkeypatch, argv, fmt, *, batched):
    monkeypatch.setattr(cli_evaluate, "streamable",
                        stream.streamable if batched else lambda args: False)
    out_file = tmp_path / f"out_{batched}.{fmt}"
    code = main([str(a) for a in argv] + ["--format", fmt, "--output", str(out_file)])
    assert code == 0
    return out_file.read_bytes(), capsys.readouterr().err  # warnings: on stderr


OPTIONS = [
    [],
    ["--average", "micro", "--metrics", "iou,character,exact_span"],
    ["--by", "model"],
    ["--by", "model,k", "--metrics", "cleval_1d,deteval_1d", "--average", "micro"],
    ["--by", "k", "--text-col", "text", "--granularity", "word"],
    ["--text-col", "text", "--trim-spans", "whitespace", "--missing", "drop"],
    # mu_shroom reads numbers as its official scorer does, record by record (not
    # batched); read exactly, its files are batched like any other
    ["--profile", "mu_shroom", "--float-parse", "exact", "--zero-division", "warn",
     "--by", "model"],
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: " ".join(o) or "default")
@pytest.mark.parametrize("fmt", ["csv", "json", "table", "parquet"])
def test_batched_output_is_byte_identical(capsys, tmp_path, monkeypatch, small_batches,
                                          options, fmt):
    path = write_jsonl(tmp_path / "rows.jsonl", rows())
    missing = [] if "--missing" in options else ["--missing", "empty"]
    argv = ["evaluate", path, "--ref-col", "ref", "--pred-col", "pred", *missing, *options]
    batched, warned = output(capsys, tmp_path, monkeypatch, argv, fmt, batched=True)
    assert len(small_batches) >= 5 and sum(small_batches) == N
    assert min(small_batches[:-1]) >= 200  # each of two blocks or more
    small_batches.clear()
    whole, warned_whole = output(capsys, tmp_path, monkeypatch, argv, fmt, batched=False)
    assert small_batches == []
    assert batched == whole
    assert warned == warned_whole
    if "warn" in options:
        assert "mycelium: warning: " in warned


def test_a_bad_span_in_a_late_batch_names_its_line(capsys, tmp_path, monkeypatch,
                                                   small_batches):
    data = rows()
    data[1234]["pred"] = [[9, 3]]
    path = write_jsonl(tmp_path / "rows.jsonl", data)
    argv = ["evaluate", str(path), "--ref-col", "ref", "--pred-col", "pred", "--missing",
            "empty", "--by", "model"]
    messages = []
    for batched in (True, False):
        monkeypatch.setattr(cli_evaluate, "streamable",
                            stream.streamable if batched else lambda args: False)
        with pytest.raises(SpanValidationError) as info:
            cli_evaluate.run_evaluate(_namespace(argv))
        messages.append(str(info.value))
    # several batches were scored before the bad one (the last), which sent the command to
    # the in-memory path: its message, with the file's line
    assert len(small_batches) >= 4 and sum(small_batches[:-1]) <= 1234 < sum(small_batches)
    assert messages[0] == messages[1]
    assert messages[0].startswith(f"REFS {path}, row 1235, column 'pred' (--pred-col), "
                                  "span 1")


def test_refused_blocks_and_options_take_the_in_memory_path(capsys, tmp_path, monkeypatch,
                                                            small_batches):
    data = rows(300)
    data[250]["k"] = 2.5  # a float: Arrow may have altered the block's integers
    path = write_jsonl(tmp_path / "rows.jsonl", data)
    argv = ["evaluate", path, "--ref-col", "ref", "--pred-col", "pred", "--missing", "empty",
            "--by", "k"]
    batched, _ = output(capsys, tmp_path, monkeypatch, argv, "csv", batched=True)
    whole, _ = output(capsys, tmp_path, monkeypatch, argv, "csv", batched=False)
    assert batched == whole and b"2.5" in whole
    ci = _namespace(["evaluate", str(path), "--ref-col", "ref", "--pred-col", "pred",
                     "--ci", "0.9"])
    assert not stream.streamable(ci)
    assert stream.streamable(_namespace(["evaluate", str(path), "--ref-col", "ref",
                                         "--pred-col", "pred"]))
    # mu_shroom reads numbers as its official scorer does: record by record
    assert not stream.streamable(_namespace(["evaluate", str(path), "--ref-col", "ref",
                                             "--pred-col", "pred", "--profile", "mu_shroom"]))
    assert stream.streamable(_namespace(["evaluate", str(path), "--ref-col", "ref",
                                         "--pred-col", "pred", "--profile", "mu_shroom",
                                         "--float-parse", "exact"]))


def _namespace(argv):
    from mycelium.cli.app import build_parser

    parser = build_parser()
    args = parser.parse_args([str(a) for a in argv])
    args.parser = parser
    return args


@pytest.mark.parametrize("side", ["ref", "pred"])
def test_zero_length_spans_of_late_batches_are_told_once_by_their_file_row(
        capsys, tmp_path, monkeypatch, small_batches, side):
    data = rows()
    for r in data:  # no zero-length span in the file but those placed below
        for name in ("ref", "pred"):
            r[name] = None if r[name] is None else [s for s in r[name] if s[0] < s[1]]
    for i in (900, 1300):
        data[i][side] = [[1, 1], *(data[i][side] or [])]
    path = write_jsonl(tmp_path / "rows.jsonl", data)
    argv = ["evaluate", path, "--ref-col", "ref", "--pred-col", "pred", "--missing", "empty"]
    batched, warned = output(capsys, tmp_path, monkeypatch, argv, "csv", batched=True)
    assert len(small_batches) >= 5
    whole, warned_whole = output(capsys, tmp_path, monkeypatch, argv, "csv", batched=False)
    assert batched == whole and warned == warned_whole
    name = "references" if side == "ref" else "predictions"
    assert warned.count("mycelium: warning: ") == 1
    assert f"the first at {name} example 900, span 0: [1, 1]" in warned
    assert "2 zero-length spans" in warned
    # the fix in the command's own flags
    assert "fix by passing --offsets inclusive (reads" in warned and "offsets=" not in warned
