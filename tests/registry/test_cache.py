"""The cache: `add` checks hashes before anything is written, copies or links, leaves
nothing half-written; `verify` names a changed file; loaders resolve data names; a fetch
that cannot reach its URL fails clearly and leaves the cache as it was."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import mycelium
from mycelium.datasets import (Benchmark, DataFetchError, DataFile, DataHashError,
                               DataNotFoundError, add, data_dir, fetch, file_sha256,
                               registered, resolve, verify)
from mycelium.io.provenance import dataset_of


def _ragtruth_copy(tmp_path: Path) -> Path:
    src = tmp_path / "download"
    src.mkdir()
    (src / "response.jsonl").write_text('{"id": "1"}\n', encoding="utf-8")
    (src / "source_info.jsonl").write_text('{"source_id": "1"}\n', encoding="utf-8")
    return src


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_data_dir_is_the_environment_variable(cache):
    assert data_dir() == cache


def test_data_dir_default_is_the_platform_data_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("MYCELIUM_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    if os.name == "posix" and not str(data_dir()).startswith(str(Path.home() / "Library")):
        assert data_dir() == tmp_path / "xdg" / "mycelium"


def test_add_copies_and_records_hashes_where_the_registry_has_none(tmp_path, cache):
    src = _ragtruth_copy(tmp_path)
    reg = add("ragtruth", src)
    assert reg.files == ("response.jsonl", "source_info.jsonl") and reg.missing == ()
    manifest = registered("ragtruth")
    assert manifest["files"]["response.jsonl"]["sha256"] == file_sha256(src / "response.jsonl")
    assert resolve("ragtruth") == [cache / "ragtruth" / "response.jsonl",
                                   cache / "ragtruth" / "source_info.jsonl"]
    shutil.rmtree(src)  # a copy survives its source
    assert verify("ragtruth") == []
    assert _leftovers(cache) == ["ragtruth"]


def test_verify_names_the_file_with_a_changed_byte(tmp_path, cache):
    add("ragtruth", _ragtruth_copy(tmp_path))
    target = cache / "ragtruth" / "source_info.jsonl"
    data = bytearray(target.read_bytes())
    data[2] ^= 1
    target.write_bytes(bytes(data))
    (problem,) = verify("ragtruth")
    assert problem.path == "source_info.jsonl" and "expected" in problem.reason
    assert "source_info.jsonl" in str(problem)


def test_link_records_the_files_where_they_are(tmp_path, cache):
    src = _ragtruth_copy(tmp_path)
    reg = add("ragtruth", src, link=True)
    assert reg.linked and resolve("ragtruth:all")[0] == (src / "response.jsonl").resolve()
    assert not (cache / "ragtruth" / "response.jsonl").exists()
    (src / "response.jsonl").write_text('{"id": "2"}\n', encoding="utf-8")
    assert [p.path for p in verify("ragtruth")] == ["response.jsonl"]
    (src / "response.jsonl").unlink()
    assert [p.reason for p in verify("ragtruth")] == ["missing"]


def test_a_wrong_hash_registers_nothing(tmp_path, cache):
    src = tmp_path / "mushroom" / "splits" / "test_labeled" / "v1"
    src.mkdir(parents=True)
    (src / "mushroom.en-tst.v1.extra.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(DataHashError, match=r"Expected sha256 758df17a.* for "
                                            r"splits/test_labeled/v1/mushroom\.en-tst"):
        add("mu_shroom", tmp_path / "mushroom")
    assert _leftovers(cache) == []


def test_a_failed_replacement_keeps_the_previous_registration(tmp_path, cache):
    add("ragtruth", _ragtruth_copy(tmp_path))
    with pytest.raises(DataNotFoundError, match="found none"):
        add("ragtruth", tmp_path / "cache")  # a folder without the files
    assert verify("ragtruth") == [] and _leftovers(cache) == ["ragtruth"]


def test_missing_copy_says_how_to_add_it(cache):
    with pytest.raises(DataNotFoundError, match=r"mycelium data add mu_shroom PATH"):
        resolve("mu_shroom:test:en")
    with pytest.raises(FileNotFoundError, match=r"mycelium data add mu_shroom PATH"):
        mycelium.read_mushroom("mu_shroom:test:en")
    with pytest.raises(DataNotFoundError):
        verify("faithbench")


def test_a_partial_copy_raises_for_the_files_it_lacks(tmp_path):
    src = _ragtruth_copy(tmp_path)
    (src / "source_info.jsonl").unlink()
    assert add("ragtruth", src).missing == ("source_info.jsonl",)
    with pytest.raises(DataNotFoundError, match=r"file source_info\.jsonl"):
        resolve("ragtruth")


def test_a_fetch_that_cannot_reach_its_url_leaves_nothing(cache):
    pytest.importorskip("pooch")
    entry = Benchmark("unreachable", "v0",
                      (DataFile("a/x.jsonl", "all", "en", "http://127.0.0.1:9/x", None, None),),
                      {"name": "unreachable", "version": "v0"})
    with pytest.raises(DataFetchError, match=r"Expected to download a/x\.jsonl of "
                                             r"unreachable from http://127\.0\.0\.1:9/x"):
        fetch(entry)
    assert _leftovers(cache) == []


# ------------------------------------------------------------ the real Mu-SHROOM copy

def test_read_mushroom_by_name_is_the_registered_copy(mushroom_dir, cache):
    add("mu_shroom", mushroom_dir)
    assert verify("mu_shroom") == []
    path = mushroom_dir / "splits/test_labeled/v1/mushroom.en-tst.v1.extra.jsonl"
    by_name = mycelium.read_mushroom("mu_shroom:test:en")
    by_path = mycelium.read_mushroom(path)
    assert by_name.equals(by_path)
    assert dataset_of(by_name) == dataset_of(by_path)
    assert dataset_of(by_name).tag == "mu_shroom@sha256:758df17a159b"
    sig = by_name.mycelium.evaluate("hard_labels", "hard_labels",
                                    metrics="iou").attrs["mycelium_signature"]
    assert "dataset:mu_shroom@sha256:758df17a159b" in sig
    assert len(mycelium.read_mushroom("mu_shroom:test")) == 1902
    with pytest.raises(ValueError, match="Expected a data name of mu_shroom"):
        mycelium.read_mushroom("faithbench")


def test_verify_fails_on_one_changed_byte_of_the_real_copy(mushroom_dir, cache):
    add("mu_shroom", mushroom_dir)
    target = cache / "mu_shroom/splits/val/v2/mushroom.fi-val.v2.extra.jsonl"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0x20
    target.write_bytes(bytes(data))
    assert [p.path for p in verify("mu_shroom")] == ["splits/val/v2/mushroom.fi-val.v2.extra.jsonl"]
    assert json.loads((cache / "mu_shroom" / "registered.json").read_text())["linked"] is False


# ------------------------------------------------------- every loader takes a name

RAGTRUTH_RESPONSE = {"id": "1", "source_id": "7", "model": "m", "temperature": 0.7,
                     "labels": [{"start": 0, "end": 5, "text": "Paris",
                                 "label_type": "Evident Conflict"}],
                     "split": "test", "quality": "good", "response": "Paris is nice."}
RAGTRUTH_SOURCE = {"source_id": "7", "task_type": "QA", "source": "MARCO",
                   "source_info": "x", "prompt": "p"}


def test_read_ragtruth_by_name_joins_the_registered_source_info(tmp_path):
    src = tmp_path / "rt"
    src.mkdir()
    (src / "response.jsonl").write_text(json.dumps(RAGTRUTH_RESPONSE) + "\n")
    (src / "source_info.jsonl").write_text(json.dumps(RAGTRUTH_SOURCE) + "\n")
    add("ragtruth", src)
    by_name = mycelium.read_ragtruth("ragtruth")
    by_path = mycelium.read_ragtruth(src / "response.jsonl", src / "source_info.jsonl")
    assert by_name.equals(by_path) and by_name.loc[0, "task_type"] == "QA"
    assert dataset_of(by_name) == dataset_of(by_path)
    with pytest.raises(ValueError, match=r"Expected a data name of ragtruth .* got "
                                         r"'mu_shroom:test', at read_ragtruth"):
        mycelium.read_ragtruth("mu_shroom:test")


def test_read_fava_and_lettucedetect_by_name(tmp_path):
    fava = tmp_path / "fava"
    fava.mkdir()
    (fava / "annotations.json").write_text(json.dumps([{
        "output": "Messi is an American player.", "model": "chatgpt", "prompt": "p",
        "annotated": "Messi is an <entity><mark>Argentine</mark><delete>American</delete>"
                     "</entity> player."}]))
    add("fava", fava)
    assert mycelium.read_fava("fava").equals(mycelium.read_fava(fava / "annotations.json"))
    lettuce = tmp_path / "lettuce"
    lettuce.mkdir()
    (lettuce / "halueval_llm_spans.json").write_text(json.dumps([{
        "prompt": "p", "answer": "He ran home.", "labels": [], "split": "test",
        "task_type": "qa", "dataset": "halueval", "language": "en"}]))
    add("lettucedetect", lettuce)
    assert len(mycelium.read_lettucedetect("lettucedetect")) == 1
    with pytest.raises(DataNotFoundError, match="mycelium data add psiloqa PATH"):
        mycelium.read_psiloqa("psiloqa:test")
    with pytest.raises(DataNotFoundError, match="mycelium data add ragtruth_pp PATH"):
        mycelium.read_ragtruth_pp("ragtruth_pp")


# --------------------------------------------- fetch from a local server (no network)

@pytest.fixture
def server(tmp_path):
    """An HTTP server on 127.0.0.1 serving ``tmp_path / "site"`` (stopped after)."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    site = tmp_path / "site"
    site.mkdir()

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):  # keep the test output clean
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=site))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield site, f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def _entry(url: str, sha256: str | None) -> Benchmark:
    return Benchmark("served", "v1",
                     (DataFile("sub/a.jsonl", "all", "en", url + "a.jsonl", sha256, None),
                      DataFile("b.jsonl", "all", "en", None, None, None)),
                     {"name": "served", "version": "v1"})


def test_fetch_downloads_checks_and_registers(server, cache):
    pytest.importorskip("pooch")
    site, url = server
    (site / "a.jsonl").write_text('{"id": 1}\n', encoding="utf-8")
    reg = fetch(_entry(url, file_sha256(site / "a.jsonl")))
    assert reg.files == ("sub/a.jsonl",) and reg.missing == ("b.jsonl",)  # b has no URL
    assert (cache / "served" / "sub" / "a.jsonl").read_text() == '{"id": 1}\n'
    assert registered("served")["files"]["sub/a.jsonl"]["sha256"] == \
        file_sha256(site / "a.jsonl")
    assert _leftovers(cache) == ["served"]


def test_a_download_with_another_hash_leaves_nothing(server, cache):
    pytest.importorskip("pooch")
    site, url = server
    (site / "a.jsonl").write_text('{"id": 2}\n', encoding="utf-8")
    with pytest.raises(DataFetchError, match=r"Expected to download sub/a\.jsonl of served"):
        fetch(_entry(url, "0" * 64))
    assert _leftovers(cache) == []
    with pytest.raises(DataFetchError, match="404|Not Found"):
        fetch(_entry(url + "missing/", None))
    assert _leftovers(cache) == []
