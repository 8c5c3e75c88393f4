"""``mycelium data``: list, info, add, path, verify (exit 1 naming a changed file), fetch."""

from __future__ import annotations

import json

import pytest

import mycelium.cli.app as app

EIGHT = ["mu_shroom", "ragtruth", "ragtruth_pp", "psiloqa", "fava", "lettucedetect",
         "shroom_visions", "faithbench"]


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MYCELIUM_DATA_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _run(capsys, *argv):
    status = app.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_list_json_names_all_eight_with_files_hashes_licence_citation(capsys):
    status, out, _ = _run(capsys, "data", "list", "--format", "json")
    entries = json.loads(out)
    assert status == 0 and [e["name"] for e in entries] == EIGHT
    for e in entries:
        assert e["licence"] and e["citation"].startswith("@") and e["files"]
        assert all("sha256" in f and "url" in f and "path" in f for f in e["files"])
        assert e["registered"] is False
    hashed = {e["name"] for e in entries if all(f["sha256"] for f in e["files"])}
    assert hashed == {"mu_shroom", "shroom_visions", "faithbench"}


def test_list_text_and_info(capsys, cache):
    status, out, _ = _run(capsys, "data", "list")
    assert status == 0 and f"cache: {cache}" in out and "faithbench" in out
    status, out, _ = _run(capsys, "data", "info", "faithbench")
    assert status == 0
    assert "Attribution-NonCommercial-ShareAlike 4.0 International" in out
    assert "@inproceedings{faithbench-2025-naacl" in out
    assert "b64595319c5a0673c7af00a12c9340a79aeb3437c021b097745413da42d80a09  FaithBench.csv" in out
    status, out, _ = _run(capsys, "data", "info", "ragtruth")
    assert "(sha256 recorded by data add)" in out and "mycelium.io.read_ragtruth" in out
    status, _, err = _run(capsys, "data", "info", "ragtruht")
    assert status == 1 and "did you mean 'ragtruth'" in err


def test_add_path_verify_and_a_changed_byte(capsys, tmp_path, cache):
    src = tmp_path / "rt"
    src.mkdir()
    (src / "response.jsonl").write_text('{"id": "1"}\n', encoding="utf-8")
    (src / "source_info.jsonl").write_text('{"source_id": "1"}\n', encoding="utf-8")
    status, out, _ = _run(capsys, "data", "add", "ragtruth", str(src))
    assert status == 0 and "2 files checked and copied" in out
    status, out, _ = _run(capsys, "data", "path", "ragtruth")
    assert status == 0 and out.strip() == str(cache / "ragtruth")
    status, out, _ = _run(capsys, "data", "path", "ragtruth:all")
    assert out.split() == [str(cache / "ragtruth" / "response.jsonl"),
                           str(cache / "ragtruth" / "source_info.jsonl")]
    status, out, _ = _run(capsys, "data", "verify", "ragtruth")
    assert status == 0 and "2 files OK" in out
    (cache / "ragtruth" / "response.jsonl").write_text('{"id": "2"}\n', encoding="utf-8")
    status, _, err = _run(capsys, "data", "verify", "ragtruth")
    assert status == 1 and "changed file response.jsonl" in err


def test_path_and_verify_without_a_copy_say_how_to_add_it(capsys):
    for action in ("path", "verify"):
        status, _, err = _run(capsys, "data", action, "mu_shroom")
        assert status == 1 and "mycelium data add mu_shroom PATH" in err


def test_verify_passes_on_the_shared_copy_and_fails_on_a_changed_byte(capsys, mushroom_dir,
                                                                      cache):
    status, out, _ = _run(capsys, "data", "add", "mu_shroom", str(mushroom_dir))
    assert status == 0 and "34 files checked and copied" in out
    status, out, _ = _run(capsys, "data", "verify", "mu_shroom")
    assert status == 0 and "34 files OK" in out
    target = cache / "mu_shroom/splits/test_labeled/v1/mushroom.ca-tst.v1.extra.jsonl"
    data = bytearray(target.read_bytes())
    data[100] ^= 1
    target.write_bytes(bytes(data))
    status, _, err = _run(capsys, "data", "verify", "mu_shroom")
    assert status == 1
    assert "changed file splits/test_labeled/v1/mushroom.ca-tst.v1.extra.jsonl" in err
