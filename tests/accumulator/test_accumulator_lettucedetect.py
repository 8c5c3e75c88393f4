"""`mycelium.Accumulator` under the ``lettucedetect`` profile: batches of the golden cases
(overlapping and duplicate spans, zero-length tokens) added in any split, merged through
``to_bytes``, give `mycelium.evaluate` on all of them at once, every level bit for bit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mycelium
from mycelium import Accumulator

GOLDEN = json.loads((Path(__file__).resolve().parents[1] / "golden" /
                     "lettucedetect_cases.json").read_text("utf-8"))


def _examples(kind):
    return [e for c in GOLDEN["cases"] if c["kind"] == kind for e in c["examples"]]


def _kwargs(examples, kind):
    refs = [e["gold"] for e in examples]
    texts = [e["text"] for e in examples]
    if kind == "spans":
        return refs, {"predictions": [e["pred"] for e in examples], "text": texts}
    return refs, {"predictions": None, "text": texts, "threshold": 0.5,
                  "token_offsets": [e["tokens"] for e in examples],
                  "token_scores": [e["probs"] for e in examples]}


def _values(report):
    return {m: v for m, v in report.items() if m not in ("meta", "ci")}


@pytest.mark.parametrize("kind", ["spans", "tokens"])
@pytest.mark.parametrize("cuts", [(1,), (7, 40), (3, 4, 90)])
def test_batches_equal_one_call(kind, cuts):
    examples = _examples(kind)
    refs, kwargs = _kwargs(examples, kind)
    whole = mycelium.evaluate(refs, profile="lettucedetect", **kwargs)
    bounds = [0, *cuts, len(examples)]
    parts = []
    for a, b in zip(bounds, bounds[1:]):
        acc = Accumulator(profile="lettucedetect")
        r, kw = _kwargs(examples[a:b], kind)
        acc.update(r, **kw)
        parts.append(acc)
    first = Accumulator.from_bytes(parts[0].to_bytes())
    for other in parts[1:]:
        first.merge(other)
    got = first.compute()
    assert _values(got) == _values(whole)
    assert got["meta"]["signature"] == whole["meta"]["signature"]
    expected = {"character", "response_level"} | ({"token_level"} if kind == "tokens" else set())
    assert expected <= set(_values(got))
