"""The registry: all eight benchmarks with their files, hashes, licences, citations and
loaders, and hashes equal to the copies they were taken from (real files: env vars)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from mycelium.datasets import benchmarks, file_sha256, get_benchmark, is_data_name, parse_name
from tests._data_dirs import FAITHBENCH_ENV, SHROOM_VISIONS_ENV, data_folder

EIGHT = ["mu_shroom", "ragtruth", "ragtruth_pp", "psiloqa", "fava", "lettucedetect",
         "shroom_visions", "faithbench"]
TEST_LANGS = ["ar", "ca", "cs", "de", "en", "es", "eu", "fa", "fi", "fr", "hi", "it", "sv",
              "zh"]


def test_every_benchmark_mycelium_reads_is_registered():
    assert [b.name for b in benchmarks()] == EIGHT


@pytest.mark.parametrize("name", EIGHT)
def test_entry_has_files_licence_citation_and_version(name):
    b = get_benchmark(name)
    assert b.version and b.files and b.licence and b.splits and b.languages
    assert b.citation.lstrip().startswith("@") and b.citation.rstrip().endswith("}")
    for f in b.files:
        assert f.sha256 is None or re.fullmatch(r"[0-9a-f]{64}", f.sha256), f
        assert f.url is None or f.url.startswith("https://"), f
    # a benchmark either had its copy hashed, or says that `data add` records the hashes
    assert all(f.sha256 for f in b.files) or "data add" in b.info["hash_note"]


@pytest.mark.parametrize("name", EIGHT)
def test_loader_names_a_real_function(name):
    loader = get_benchmark(name).loader
    if loader is None:
        assert get_benchmark(name).info["loader_note"]
        return
    module, attr = loader.rsplit(".", 1)
    assert callable(getattr(importlib.import_module(module), attr))


def test_mu_shroom_has_val_and_test_in_14_languages():
    b = get_benchmark("mu_shroom")
    assert sorted(f.lang for f in b.select("test")) == TEST_LANGS
    assert len(b.select("val")) == 10 and len(b.select("val_v1")) == 10
    (en,) = b.select("test", "en")
    assert en.path == "splits/test_labeled/v1/mushroom.en-tst.v1.extra.jsonl"
    assert en.sha256 == "758df17a159bb1c75adb7e7ef6900a3903a56a6d803195770ec73ea2f0c45131"
    assert en.url.endswith("/7fea78a0e5af887d196931721147ace5b4c4d9a8/" + en.path)


def test_data_names():
    assert is_data_name("mu_shroom:test:en") and is_data_name("faithbench")
    assert not is_data_name("nope:test") and not is_data_name("a/b.jsonl")
    assert not is_data_name(Path("mu_shroom"))
    bench, split, lang = parse_name("mu_shroom:test:EN")
    assert (bench.name, split, lang) == ("mu_shroom", "test", "en")
    with pytest.raises(KeyError, match="did you mean 'mu_shroom'"):
        get_benchmark("mushroom")
    with pytest.raises(KeyError, match=r"Expected a split in \['test', 'val', 'val_v1'\]"):
        get_benchmark("mu_shroom").select("dev")


def _check_hashes(name: str, folder: Path) -> int:
    b = get_benchmark(name)
    for f in b.files:
        assert file_sha256(folder / f.path) == f.sha256, f.path
        assert (folder / f.path).stat().st_size == f.bytes
    return len(b.files)


def test_mu_shroom_hashes_are_the_shared_copy(mushroom_dir):
    assert _check_hashes("mu_shroom", mushroom_dir) == 34


@pytest.mark.parametrize("name, env, count", [("faithbench", FAITHBENCH_ENV, 34),
                                              ("shroom_visions", SHROOM_VISIONS_ENV, 4)])
def test_other_hashes_are_the_shared_copy(name, env, count):
    folder, why = data_folder(env)
    if folder is None:
        pytest.skip(why)
    assert _check_hashes(name, folder) == count
