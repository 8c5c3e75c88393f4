"""The command as users run it: ``python -m mycelium``, the ``mycelium`` console script,
the README's main job with its printed excerpt, and the example scripts."""

from __future__ import annotations

import io
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_data import canonical, frame_records

import mycelium
from mycelium.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = shutil.which("mycelium", path=str(Path(sys.executable).parent))
SPANS = ["--ref-col", "ref", "--pred-col", "pred", "--text-col", "text"]

COMMANDS = [pytest.param([sys.executable, "-m", "mycelium"], id="python -m mycelium")]
COMMANDS.append(pytest.param([SCRIPT], id="console script", marks=pytest.mark.skipif(
    SCRIPT is None, reason="the mycelium console script is not installed next to python "
                           "(pip install -e .)")))


def call(command, *argv, stdin=None, cwd=ROOT):
    return subprocess.run([*command, *map(str, argv)], input=stdin, capture_output=True,
                          text=True, encoding="utf-8", cwd=cwd, timeout=120)


@pytest.mark.parametrize("command", COMMANDS)
def test_success_exit_0(command, files, frame):
    done = call(command, "evaluate", files["parquet"], *SPANS, "--by", "lang",
                "--format", "json")
    assert (done.returncode, done.stderr) == (0, "")
    want = frame.mycelium.evaluate("ref", "pred", text="text", by="lang")
    records = json.loads(done.stdout)["records"]
    assert canonical([tuple(r.values()) for r in records]) == frame_records(want)


@pytest.mark.parametrize("command", COMMANDS)
def test_table_from_standard_input(command, files):
    done = call(command, "evaluate", "-", *SPANS, "--by", "model", "--metrics", "iou",
                stdin=files["jsonl"].read_text("utf-8"))
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["model", "metric", "score", "examples", "average",
                                "profile"]
    assert lines[-1].startswith("signature: mycelium:")


@pytest.mark.parametrize("command", COMMANDS)
def test_bad_data_exit_1_one_line(command, tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"ref": [[0, 3]], "pred": [[4, 2]]}\n', "utf-8")
    done = call(command, "evaluate", path, "--ref-col", "ref", "--pred-col", "pred")
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert re.fullmatch(r"mycelium: error: REFS .*d\.jsonl, row 1, column 'pred' "
                        r"\(--pred-col\), span 1: start 4 > end 2; .*\n", done.stderr)
    debug = call(command, "--debug", "evaluate", path, "--ref-col", "ref", "--pred-col", "pred")
    assert debug.returncode == 1
    assert debug.stderr.startswith("Traceback (most recent call last):")
    assert debug.stderr.splitlines()[-1] == done.stderr.rstrip("\n")


@pytest.mark.parametrize("command", COMMANDS)
def test_missing_file_exit_1(command, tmp_path):
    done = call(command, "evaluate", tmp_path / "none.csv", "--ref-col", "a", "--pred-col", "b")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"mycelium: error: No such file or directory: {tmp_path / 'none.csv'}\n"


@pytest.mark.parametrize("command", COMMANDS)
def test_usage_exit_2(command, files):
    done = call(command, "evaluate", files["jsonl"], "--ref-col", "ref")
    assert done.returncode == 2
    assert done.stderr.startswith("usage: mycelium evaluate")
    assert done.stderr.splitlines()[-1] == (
        "mycelium evaluate: error: give the predictions: --pred-col (predicted spans), or "
        "scores with --soft-pred-col or --token-offsets-col and --token-scores-col "
        "(optionally --threshold for spans at a threshold)")
    assert call(command).returncode == 2


@pytest.mark.parametrize("command", COMMANDS)
def test_version(command):
    done = call(command, "--version")
    assert (done.returncode, done.stdout) == (0, f"mycelium {mycelium.__version__}\n")


# ----------------------------------------------------------------------- README

def readme_main_job() -> tuple[list[str], list[str]]:
    """The ``mycelium evaluate`` command of the Quick start and the excerpt after it."""
    text = (ROOT / "README.md").read_text("utf-8")
    quick = text[text.index("## Quick start"):text.index("\n## ", text.index("## Quick start"))]
    blocks = re.findall(r"```(\w*)\n(.*?)```", quick, flags=re.S)
    setup = next(body for lang, body in blocks if lang == "bash")
    command = re.search(r"^mycelium evaluate .*?(?<!\\)$", setup.replace("\\\n", " "),
                        flags=re.M).group(0)
    excerpt = next(body for lang, body in blocks if not lang and "signature:" in body)
    return shlex.split(command), excerpt.splitlines()


def test_readme_main_job_prints_the_readme_excerpt(capsys, monkeypatch):
    argv, excerpt = readme_main_job()
    assert argv[0] == "mycelium"
    monkeypatch.chdir(ROOT)
    assert main(argv[1:]) == 0
    out = capsys.readouterr().out.splitlines()
    shown = [line for line in excerpt if line != "..."]
    assert len(shown) > 5
    assert all(line in out for line in shown), set(shown) - set(out)
    assert out[:3] == excerpt[:3]
    assert out[-2:] == excerpt[-2:]


@pytest.mark.skipif(SCRIPT is None, reason="the mycelium console script is not installed")
def test_readme_main_job_runs_as_written():
    argv, excerpt = readme_main_job()
    done = call([SCRIPT], *argv[1:])
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[-1] == excerpt[-1]


# --------------------------------------------------------------------- examples

def test_example_data_is_what_the_generator_writes():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import make_example_data as gen
    finally:
        sys.path.remove(str(ROOT / "examples"))
    data = ROOT / "examples" / "data"
    rows = list(gen.rows())

    def lines(records):
        return [json.dumps(r, ensure_ascii=False) for r in records]

    assert (data / "detections.jsonl").read_text("utf-8").splitlines() == lines(rows)
    references, predictions = gen.split_layout(rows)
    assert (data / "references.jsonl").read_text("utf-8").splitlines() == lines(references)
    for name, records in predictions.items():
        path = data / "predictions" / f"{name}.jsonl"
        assert path.read_text("utf-8").splitlines() == lines(records)


def test_split_layout_scores_like_the_joined_file(capsys, monkeypatch):
    data = ROOT / "examples" / "data"
    options = ["--text-col", "text", "--by", "lang", "--profile", "mu_shroom",
               "--format", "csv"]
    assert main(["evaluate", str(data / "references.jsonl"),
                 str(data / "predictions" / "pinpoint.jsonl"), "--id-col", "id",
                 "--ref-col", "spans", "--pred-col", "spans", *options]) == 0
    split_out = capsys.readouterr().out
    lines = [line for line in (data / "detections.jsonl").read_text("utf-8").splitlines()
             if json.loads(line)["detector"] == "pinpoint"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["evaluate", "-", "--ref-col", "ref_spans", "--pred-col", "pred_spans",
                 *options]) == 0
    assert capsys.readouterr().out == split_out


def test_walkthrough_runs_top_to_bottom(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "walkthrough.py")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "span_coverage F1 = 1.00, IoU = 0.14" in done.stdout
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "matplotlib is not installed: skipping the figure" in done.stdout
    else:
        assert "pinpoint_coverage.png" in done.stdout
