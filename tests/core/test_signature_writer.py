"""The signature is written in one place: `mycelium.core.signature` (`format_signature`
from the settings value, `signature_with` for what a call learns later)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mycelium.core.provenance import Dataset
from mycelium.core.settings import resolve_settings
from mycelium.core.signature import parse_signature, signature_with
from mycelium.scores import Tuned

PACKAGE = Path(__file__).resolve().parents[2] / "mycelium"
# A string literal that starts a signature field ("|key:"), a signature cut into fields,
# or fields joined into one by hand (a protocol's: `protocol_signature` joins them).
WRITES = re.compile(r"""["']\|[a-z_]+:|signature\S*\.split\(|signature\S*\.replace\("""
                    r"""|["']\|["']\.join\((fields|\[)""")


def test_no_module_but_the_writer_writes_signature_fields():
    found = [f"{p.relative_to(PACKAGE)}:{i}: {line.strip()}"
             for p in sorted(PACKAGE.rglob("*.py")) if p.name != "signature.py"
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if WRITES.search(line) and not line.lstrip().startswith((">>>", "#"))]
    assert not found, "Expected signature fields written by mycelium.core.signature " \
        "only, got:\n" + "\n".join(found)


def test_fields_land_in_their_places():
    base = resolve_settings(metrics="iou", ci=0.9, n_resamples=50).signature()
    sig = signature_with(base, metrics=["iou", "response_level"],
                         params={"response_level": {"unit": "chars"}}, scores="token",
                         threshold=Tuned(0.25, "iou"), thresholds=7, grid="range/4",
                         tuned="iou.score", annotators="pairwise", test="paired_bootstrap")
    fields = sig.split("|")
    assert fields.index("response_level.unit:chars") < fields.index("missing:error")
    assert fields[-8:] == ["scores:token", "threshold:0.25", "tuned:iou", "thresholds:7",
                           "grid:range/4", "tuned:iou.score", "annotators:pairwise",
                           "test:paired_bootstrap"]
    back = parse_signature(sig)
    assert back["metrics"] == ["iou", "response_level"] and back["ci"] == 0.9


def test_dataset_fields_end_it_and_replace_earlier_ones():
    d = Dataset("mushroom", ("a.jsonl",), "0" * 64, float_parse="exact")
    once = signature_with("mycelium:0.1.0|profile:none", dataset=d)
    assert once == ("mycelium:0.1.0|profile:none|float_parse:exact|"
                    f"dataset:mushroom@sha256:{'0' * 12}|dataset_files:a.jsonl")
    assert signature_with(once, dataset=d) == once
    # A reading recorded later goes before the dataset fields.
    assert signature_with(once, float_parse="pandas-fast").split("|")[2] == \
        "float_parse:pandas-fast"
    assert signature_with(None, dataset=d) is None


def test_unknown_appended_field_is_refused():
    with pytest.raises(TypeError, match="Expected signature fields among"):
        signature_with("mycelium:0.1.0", colour="red")
