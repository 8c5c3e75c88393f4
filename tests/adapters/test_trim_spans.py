"""``evaluate(trim_spans=...)``: whitespace, or whitespace and punctuation, stripped
from both sides' span edges before scoring; off by default and recorded in the
signature."""

from __future__ import annotations

import pytest

import mycelium

TEXT = ' "Paris" is\u00a0big. '
# references mark the quoted word with its quotes and the leading space; the
# prediction marks the bare word
REFS, PREDS = [[(0, 8)]], [[(2, 7)]]


def test_off_by_default_and_not_in_the_signature():
    r = mycelium.evaluate(REFS, PREDS, text=[TEXT], metrics=["exact_span", "character"])
    assert r["exact_span"]["f1"] == 0.0
    assert r["character"]["recall"] == pytest.approx(5 / 8)
    assert "trim_spans" not in r["meta"]["signature"]
    assert "trim_spans" not in r["meta"]


@pytest.mark.parametrize("mode, exact_f1, char_recall", [
    ("whitespace", 0.0, 5 / 7),   # (1, 8): the quotes stay
    ("punctuation", 1.0, 1.0),    # (2, 7): quotes stripped too
])
def test_modes(mode, exact_f1, char_recall):
    r = mycelium.evaluate(REFS, PREDS, text=[TEXT], metrics=["exact_span", "character"],
                          trim_spans=mode)
    assert r["exact_span"]["f1"] == exact_f1
    assert r["character"]["recall"] == pytest.approx(char_recall)
    assert r["meta"]["trim_spans"] == mode
    assert r["meta"]["signature"].endswith(f"|granularity:char|trim_spans:{mode}")
    back = mycelium.parse_signature(r["meta"]["signature"])
    assert back["trim_spans"] == mode
    again = mycelium.evaluate(REFS, PREDS, text=[TEXT], metrics=back["metrics"],
                              trim_spans=back["trim_spans"])
    assert again["meta"]["signature"] == r["meta"]["signature"]


def test_both_sides_trimmed_and_emptied_spans_dropped():
    # the prediction ' big. ' trims to 'big' (punctuation) and the one on '. ' vanishes
    text = "is\u00a0big. "
    r = mycelium.evaluate([[(3, 6)]], [[(2, 8), (6, 8)]], text=[text],
                          metrics=["exact_span"], trim_spans="punctuation")
    assert r["exact_span"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    r = mycelium.evaluate([[(3, 6)]], [[(2, 8), (6, 8)]], text=[text],
                          metrics=["exact_span"], trim_spans="whitespace")
    assert r["exact_span"]["precision"] == 0.0


def test_needs_text_and_a_known_mode():
    with pytest.raises(ValueError, match="trim_spans='whitespace' needs the text"):
        mycelium.evaluate(REFS, PREDS, trim_spans="whitespace")
    with pytest.raises(ValueError, match="trim_spans='space' is not supported; expected "
                                         "one of 'whitespace', 'punctuation'"):
        mycelium.evaluate(REFS, PREDS, text=[TEXT], trim_spans="space")
    with pytest.raises(ValueError, match="trim_spans and type_field cannot be combined"):
        mycelium.evaluate(REFS, PREDS, text=[TEXT], trim_spans="whitespace",
                          type_field="label_type")


def test_with_word_granularity_trims_first():
    # ' "Paris"' touches the word Paris only either way; trimming keeps that
    r = mycelium.evaluate(REFS, PREDS, text=[TEXT], metrics=["exact_span"],
                          granularity="word", trim_spans="whitespace")
    assert r["exact_span"]["f1"] == 1.0
