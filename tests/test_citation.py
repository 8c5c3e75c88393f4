"""CITATION.cff is valid Citation File Format 1.2.0 (validated against the format's own
JSON schema, shipped in tests/citation/ with its provenance) and agrees with the package."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import mycelium

yaml = pytest.importorskip("yaml", reason="PyYAML is not installed (the 'test' extra)")
jsonschema = pytest.importorskip("jsonschema",
                                 reason="jsonschema is not installed (the 'test' extra)")

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "tests" / "citation" / "cff-1.2.0.schema.json"


def _citation() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_the_schema_is_the_published_one():
    digest = hashlib.sha256(SCHEMA.read_bytes()).hexdigest()
    assert digest in (ROOT / "tests" / "citation" / "SOURCE.md").read_text(encoding="utf-8")
    assert json.loads(SCHEMA.read_text())["$id"] == \
        "https://citation-file-format.github.io/1.2.0/schema.json"


def test_citation_cff_validates_against_the_cff_1_2_0_schema():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema,
                                           format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(_citation()), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def test_the_schema_catches_a_broken_citation():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    broken = dict(_citation())
    del broken["authors"]
    broken["license"] = "not-a-licence"
    messages = [e.message for e in jsonschema.Draft7Validator(schema).iter_errors(broken)]
    assert any("'authors' is a required property" in m for m in messages)
    assert len(messages) >= 2


def test_citation_names_the_package_version_and_licence():
    cff = _citation()
    assert str(cff["version"]) == mycelium.__version__
    assert cff["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT")
