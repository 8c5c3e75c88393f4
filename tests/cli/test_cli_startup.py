"""``mycelium --version`` and ``--help`` import nothing heavy, and ``import mycelium``
loads no frame library and no array library until a name needs one (issue: start-up was
most of the cost of every command). Behavioural checks on ``sys.modules`` in a fresh
interpreter, not timings (benchmarks/bench_startup.py times them)."""

import subprocess
import sys

import pytest

from mycelium.cli.app import COMMANDS, build_parser

HEAVY = ("numpy", "pyarrow", "pandas", "polars", "scipy", "matplotlib", "pyspark")


def _loaded_after(code: str, *args: str) -> list[str]:
    probe = (f"import sys\n{code}\n"
             f"sys.stdout.write(' '.join(m for m in {HEAVY!r} if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_import_nothing_heavy(flag):
    code = ("from mycelium.cli.app import main\n"
            "try:\n"
            "    status = main()\n"
            "except SystemExit as exc:\n"
            "    status = exc.code\n"
            "assert status == 0, status\n"
            "sys.stdout.flush()\n"
            "print('@@')")
    done = _loaded_after(code, flag)
    assert done[done.index("@@") + 1:] == []


def test_python_m_mycelium_version_imports_nothing_heavy():
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "mycelium", "--version"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("mycelium "), done.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    assert imported & set(HEAVY) == set()


def test_import_mycelium_imports_nothing_heavy():
    assert _loaded_after("import mycelium") == []


def test_a_public_name_loads_what_it_needs():
    assert set(_loaded_after("import mycelium\nmycelium.evaluate")) >= {"numpy", "pyarrow"}


def test_the_light_parser_shows_the_full_parser_s_help():
    # the table's help lines are the subcommands' own, so --help reads the same whether
    # or not their modules are loaded
    assert build_parser(full=False).format_help() == build_parser().format_help()
    for name in COMMANDS:
        assert build_parser(name, full=False).format_help() == build_parser().format_help()


def _arguments(parser, name):
    sub = parser._subparsers._group_actions[0].choices[name]
    return [a.dest for a in sub._actions if a.dest != "help"]


def test_each_subcommand_is_built_when_named():
    full = build_parser()
    for name in COMMANDS:
        assert _arguments(build_parser(name, full=False), name) == _arguments(full, name)
        assert _arguments(full, name), name
        others = [n for n in COMMANDS if n != name]
        assert all(_arguments(build_parser(name, full=False), n) == [] for n in others)


def test_the_mushroom_drop_in_scores_without_pandas(tmp_path):
    # pyarrow's to_numpy imports pandas when installed (its converters' set-up); the
    # drop-in reads Arrow's buffers instead and ranks Cor without pandas.factorize.
    ref = tmp_path / "ref.jsonl"
    pred = tmp_path / "pred.jsonl"
    ref.write_text('{"id": "a", "model_output_text": "Paris is in Italy.", "hard_labels": '
                   '[[12, 17]], "soft_labels": [{"start": 12, "end": 17, "prob": 0.6667}]}\n'
                   '{"id": "b", "model_output_text": "Blue sky.", "hard_labels": [], '
                   '"soft_labels": []}\n', encoding="utf-8")
    pred.write_text('{"id": "b", "soft_labels": [{"start": 0, "end": 4, "prob": 0.2}]}\n'
                    '{"id": "a", "soft_labels": [{"start": 9, "end": 12, "prob": 0.4}, '
                    '{"start": 12, "end": 17, "prob": 0.9}]}\n', encoding="utf-8")
    code = ("from mycelium.cli.app import main\n"
            "assert main() == 0\n"
            "sys.stdout.write('@@ ')")
    done = _loaded_after(code, "mushroom", str(ref), str(pred))
    # a: hard labels from prob > 0.5 equal the reference's, Cor 0.8660254; b: both empty,
    # the reference all zero and the prediction not, Cor 0.0
    assert done[:4] == ["IoU:", "1.00000000", "Cor:", "0.43301270"], done
    assert "pandas" not in done[done.index("@@") + 1:]
