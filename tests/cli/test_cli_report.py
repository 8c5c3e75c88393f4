"""``mycelium report``: files in, one HTML file out; usage and data errors."""

from __future__ import annotations

from pathlib import Path

from mycelium.cli.app import main

DATA = Path(__file__).resolve().parents[2] / "examples" / "data"


def test_reference_file_and_one_file_per_detector(tmp_path):
    out = tmp_path / "report.html"
    preds = sorted(str(p) for p in (DATA / "predictions").glob("*.jsonl"))
    code = main(["report", str(DATA / "references.jsonl"), *preds, "--ref-col", "spans",
                 "--pred-col", "spans", "--text-col", "text", "--id-col", "id",
                 "--by", "lang", "--resamples", "200", "--title", "Example", "-o", str(out)])
    html = out.read_text(encoding="utf-8")
    assert code == 0
    assert html.startswith("<!DOCTYPE html>")
    for name in ("careful", "overmarking", "pinpoint", "random"):
        assert f"<tr><td>{name}</td><td>48</td>" in html
        assert (f"<summary><b>{name}</b>: lowest iou first, 3 per group of lang; ties: the "
                "most characters marked on either side first</summary>") in html
    assert html.count('<div class="myc-title">id ex-') == 4 * 4 * 3 + 3  # + disagreement
    assert "192 rows, 4 detector(s), grouped by lang" in html


def test_long_format_equals_one_file_per_detector(tmp_path):
    wide, long = tmp_path / "a.html", tmp_path / "b.html"
    preds = sorted(str(p) for p in (DATA / "predictions").glob("*.jsonl"))
    common = ["--text-col", "text", "--ci", "0", "--by", "lang"]
    assert main(["report", str(DATA / "references.jsonl"), *preds, "--ref-col", "spans", "--pred-col",
                 "spans", "--id-col", "id", *common, "-o", str(wide)]) == 0
    assert main(["report", str(DATA / "detections.jsonl"), "--ref-col", "ref_spans", "--pred-col",
                 "pred_spans", "--detector-col", "detector", *common, "-o", str(long)]) == 0
    table = lambda html: html[html.index('<section id="overall">'):
                              html.index('<section id="figures">')]
    assert table(wide.read_text()) == table(long.read_text())


def test_usage_and_data_errors(tmp_path, capsys):
    out = str(tmp_path / "r.html")
    refs = str(DATA / "references.jsonl")
    pred = str(DATA / "predictions" / "careful.jsonl")
    assert main(["report", refs, pred, "--ref-col", "spans", "--pred-col", "spans",
                 "--detector-col", "x", "-o", out]) == 2
    assert "--detector-col names detectors within REFS" in capsys.readouterr().err
    assert main(["report", refs, pred, "--ref-col", "spans", "--pred-col", "nope", "--id-col", "id",
                 "-o", out]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mycelium: error: --pred-col column 'nope' not found in PREDS")
    assert not Path(out).exists()


def test_a_span_past_its_text_is_told_by_file_and_row(tmp_path, capsys):
    lines = (DATA / "predictions" / "random.jsonl").read_text().splitlines()
    lines[3] = lines[3].split('"spans"')[0] + '"spans": [[0, 999]]}'
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    code = main(["report", str(DATA / "references.jsonl"),
                 str(DATA / "predictions" / "careful.jsonl"), str(bad), "--ref-col", "spans",
                 "--pred-col", "spans", "--text-col", "text", "--id-col", "id",
                 "-o", str(tmp_path / "r.html")])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith(f"mycelium: error: PREDS {bad}, row 4, id ")
    assert "column 'spans' (--pred-col), span 1" in err and "end 999" in err


def test_a_null_span_list_is_told_with_a_remedy_report_accepts(tmp_path, capsys):
    """``report`` has no ``--missing``: the message must not offer it (``evaluate``'s
    remedy), but one the command can act on."""
    lines = (DATA / "predictions" / "random.jsonl").read_text().splitlines()
    lines[1] = lines[1].split('"spans"')[0] + '"spans": null}'
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    args = ["--ref-col", "spans", "--pred-col", "spans", "--id-col", "id",
            "-o", str(tmp_path / "r.html")]
    assert main(["report", str(DATA / "references.jsonl"), str(bad), *args]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"mycelium: error: PREDS {bad}, row 2, id ")
    assert err.rstrip().endswith("column 'spans' (--pred-col) is null (None/NaN) instead of "
                                 "a span list; fix by writing [] in that cell for an "
                                 "example without spans, or removing the row.")
    assert "--missing" not in err
    # evaluate keeps its own remedy, which it accepts.
    assert main(["evaluate", str(DATA / "references.jsonl"), str(bad), *args[:6]]) == 1
    assert "fix by passing --missing empty" in capsys.readouterr().err


def _inclusive_copy(src: Path, dst: Path, field: str = "spans") -> Path:
    """``src`` with every span's end written inclusive (``[s, e - 1]``)."""
    import json

    rows = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        row[field] = [[s, e - 1] for s, e in row[field]]
    dst.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return dst


def test_inclusive_files_warn_once_and_read_with_offsets_inclusive(tmp_path, capsys):
    # A report scores its rows several times (overall, per group, views): the
    # zero-length spans of inclusive files are told once, with the command's own flag;
    # --offsets inclusive then gives the report of the half-open files, but for the
    # signature's offsets field.
    preds = [DATA / "predictions" / f"{name}.jsonl" for name in ("careful", "pinpoint")]
    inclusive = [_inclusive_copy(DATA / "references.jsonl", tmp_path / "references.jsonl"),
                 *(_inclusive_copy(p, tmp_path / p.name) for p in preds)]
    common = ["--ref-col", "spans", "--pred-col", "spans", "--text-col", "text", "--id-col",
              "id", "--by", "lang", "--resamples", "50"]
    out = tmp_path / "r.html"
    assert main(["report", *map(str, inclusive), *common, "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("mycelium: warning: ") == 1 and "zero-length spans" in err
    assert "passing --offsets inclusive" in err
    read = tmp_path / "read.html"
    assert main(["report", *map(str, inclusive), *common, "--offsets", "inclusive",
                 "-o", str(read)]) == 0
    assert capsys.readouterr().err == ""
    by_hand = tmp_path / "by_hand.html"
    assert main(["report", str(DATA / "references.jsonl"), *map(str, preds), *common,
                 "-o", str(by_hand)]) == 0
    got, want = read.read_text(encoding="utf-8"), by_hand.read_text(encoding="utf-8")
    assert "offsets:inclusive" in got and "offsets:inclusive" not in want
    assert got.replace("offsets:inclusive", "offsets:half-open") == want
