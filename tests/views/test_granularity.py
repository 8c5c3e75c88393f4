"""Granularity: word and sentence units on multilingual text, and metrics over units,
checked by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from mycelium import parse_signature
from mycelium.views.granularity import unit_bounds

from _stats_data import flat


def _units(text, granularity):
    s, e = unit_bounds(text, granularity)
    return list(zip(s, e))


def _words(text):
    return [text[s:e] for s, e in _units(text, "word")]


def _sentences(text):
    return [text[s:e] for s, e in _units(text, "sentence")]


# ------------------------------------------------------------------------- words


def test_english_words():
    text = "Hello, world! It's 3.5 km."
    # H0..o4 ,5 _6 w7..d11 !12 _13 I14 t15 '16 s17 _18 3(19) .20 5(21) _22 k23 m24 .25
    assert _units(text, "word") == [(0, 5), (7, 12), (14, 16), (17, 18), (19, 20),
                                    (21, 22), (23, 25)]


def test_german_words_precomposed_and_decomposed():
    text = "Größe: 5 Äpfel für Müller."
    assert _units(text, "word") == [(0, 5), (7, 8), (9, 14), (15, 18), (19, 25)]
    nfd = "Mu\u0308ller sagt"  # u + COMBINING DIAERESIS stays inside the word
    assert _units(nfd, "word") == [(0, 7), (8, 12)]


def test_hindi_combining_marks_stay_inside_words():
    text = "नमस्ते दुनिया।"  # न म स ् त े | space | द ु न ि य ा | danda
    assert len(text) == 14
    assert _units(text, "word") == [(0, 6), (7, 13)]
    assert _words("हाँ जी") == ["हाँ", "जी"]  # candrabindu (Mn) inside


def test_arabic_words_keep_their_diacritics():
    text = "مَرْحَبًا بِكُم؟ نعم."
    assert _units(text, "word") == [(0, 9), (10, 15), (17, 20)]
    assert _words(text) == ["مَرْحَبًا", "بِكُم", "نعم"]


def test_each_han_character_is_a_word():
    assert _units("我爱北京。", "word") == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert _units("你好，世界", "word") == [(0, 1), (1, 2), (3, 4), (4, 5)]


def test_each_kana_is_a_word():
    assert _units("これはペンです。", "word") == [(i, i + 1) for i in range(7)]
    assert _words("日本語を話す") == ["日", "本", "語", "を", "話", "す"]


def test_mixed_scripts():
    text = "GPT-4は東京で2024年にrelease"
    assert _units(text, "word") == [(0, 3), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9),
                                    (9, 13), (13, 14), (14, 15), (15, 22)]
    assert _words("snake_case и Кириллица") == ["snake_case", "и", "Кириллица"]


@pytest.mark.parametrize("text", ["?!... —", "  \t\n ", "", "---", "。！？"])
def test_no_words_in_punctuation_whitespace_or_empty_text(text):
    assert _units(text, "word") == []


def test_sentences_of_punctuation_whitespace_and_empty_text():
    assert _units("?!... —", "sentence") == [(0, 5), (6, 7)]
    assert _units("  \t\n ", "sentence") == []
    assert _units("", "sentence") == []


@pytest.mark.parametrize("text,expected", [
    ("ที่นี่", ["ที่", "นี่"]),          # Thai: consonant + vowel sign + tone mark
    ("か\u3099き", ["か\u3099", "き"]),   # NFD が
    ("漢\ufe00字", ["漢\ufe00", "字"]),   # variation selector
])
def test_combining_marks_stay_with_unspaced_characters(text, expected):
    assert _words(text) == expected


def test_halfwidth_katakana_are_one_word_each():
    assert _words("ｶﾀｶﾅ") == ["ｶ", "ﾀ", "ｶ", "ﾅ"]


# --------------------------------------------------------------------- sentences


def test_sentence_terminators_of_many_scripts():
    text = "Hi. Bye! Why? Wait… Yes؟ हाँ। 好。行！真？"
    assert _units(text, "sentence") == [(0, 3), (4, 8), (9, 13), (14, 19), (20, 24),
                                        (25, 29), (30, 32), (32, 34), (34, 36)]


def test_closing_quotes_and_brackets_belong_to_the_sentence():
    assert _sentences('He said "Stop." Then left.') == ['He said "Stop."', "Then left."]
    assert _sentences("Ende.) Neu (ja!) gut") == ["Ende.)", "Neu (ja!)", "gut"]
    assert _sentences("「はい。」と言った。") == ["「はい。」", "と言った。"]


def test_german_closing_quotes_end_a_sentence():
    assert _sentences("Er sagte: „Nein.“ Dann ging er.") == ["Er sagte: „Nein.“",
                                                              "Dann ging er."]


def test_newlines_end_sentences_and_blank_lines_are_not_sentences():
    text = "line one\nline two\n\nthree"
    assert _units(text, "sentence") == [(0, 8), (9, 17), (19, 24)]
    assert _sentences("Done.\n") == ["Done."]
    assert _sentences("a\r\nb") == ["a", "b"]


def test_full_width_terminators_need_no_space():
    assert _units("你好。再见！谢谢", "sentence") == [(0, 3), (3, 6), (6, 8)]
    assert _sentences("本当？はい。") == ["本当？", "はい。"]


def test_half_width_terminators_need_whitespace_or_the_end():
    # No abbreviation list; no split inside 3.5 or before a letter without a space.
    assert _sentences("Dr. Smith paid 3.5 dollars.Really") == [
        "Dr.", "Smith paid 3.5 dollars.Really"]
    assert _sentences("Wow!!! Really?!") == ["Wow!!!", "Really?!"]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab 。.!?\n\t\"'中かー,é\u0301"
                                                + "\u0915\u093f")), max_size=40),
       st.sampled_from(["word", "sentence"]))
def test_units_are_sorted_disjoint_nonempty_and_trimmed(text, granularity):
    units = _units(text, granularity)
    for (s, e), nxt in zip(units, units[1:] + [(len(text), len(text))]):
        assert 0 <= s < e <= nxt[0] <= len(text)
        assert not text[s].isspace() and not text[e - 1].isspace()
    if granularity == "sentence":
        # Every non-space character is inside exactly one sentence.
        covered = set().union(*(range(s, e) for s, e in units)) if units else set()
        assert {i for i, c in enumerate(text) if not c.isspace()} <= covered


def test_unknown_granularity_raises():
    with pytest.raises(ValueError, match="granularity"):
        unit_bounds("abc", "paragraph")
    with pytest.raises(ValueError, match="granularity"):
        mycelium.evaluate([[0, 1]], [[0, 1]], text="abc", granularity="token")


# ------------------------------------------------------------ metrics over units


TEXTS = ["the cat sat on the mat", "hello   world"]
# words: the[0,3) cat[4,7) sat[8,11) on[12,14) the[15,18) mat[19,22); hello[0,5) world[8,13)


def test_word_level_metrics_by_hand():
    refs = [[[4, 11]], [[0, 5]]]      # cat sat | hello
    preds = [[[5, 9]], [[5, 8]]]      # half of cat + s of sat -> cat sat | only spaces
    micro = mycelium.evaluate(refs, preds, text=TEXTS, granularity="word", average="micro",
                              metrics=["exact_span", "iou", "character", "span_coverage"])
    # Units: refs [1,3) | [0,1); preds [1,3) | nothing.
    assert micro["exact_span"] == {"precision": 1.0, "recall": 0.5, "f1": 2 / 3}
    assert micro["iou"] == {"score": 2 / 3}
    assert micro["character"] == {"precision": 1.0, "recall": 2 / 3, "f1": 0.8}
    assert micro["span_coverage"] == {"precision": 1.0, "recall": 0.5, "f1": 2 / 3}
    macro = mycelium.evaluate(refs, preds, text=TEXTS, granularity="word",
                              metrics=["iou", "character"], include_per_example=True)
    assert macro["iou"] == {"score": 0.5}
    assert macro["per_example"][0]["character"] == {"precision": 1.0, "recall": 1.0,
                                                    "f1": 1.0}
    assert macro["per_example"][1]["character"] == {"precision": 0.0, "recall": 0.0,
                                                    "f1": 0.0}
    # The same spans at character granularity: exact 0, character P 1 (4 of 4), R 4/7.
    chars = mycelium.evaluate(refs, preds, text=TEXTS, average="micro",
                              metrics=["exact_span", "character"])
    assert chars["exact_span"]["recall"] == 0.0
    assert chars["character"]["recall"] == 4 / 12


def test_a_span_over_only_spaces_marks_nothing():
    r = mycelium.evaluate([[8, 13]], [[5, 8]], text="hello   world", granularity="word",
                          metrics=["iou", "character"], zero_division=1.0)
    # ref = world; pred touches no word -> no predicted unit: P = 0/0 -> 1.0, R = 0.
    assert r["iou"] == {"score": 0.0}
    assert r["character"] == {"precision": 1.0, "recall": 0.0, "f1": 0.0}


def test_a_span_touching_one_character_marks_the_whole_word():
    text = "unbelievable claims"
    r = mycelium.evaluate([[0, 12]], [[11, 13]], text=text, granularity="word",
                          metrics=["exact_span", "iou"])
    # pred covers 'e' of word 0 and the space: -> word 0 = the reference exactly.
    assert r["exact_span"]["f1"] == 1.0 and r["iou"]["score"] == 1.0


def test_cjk_word_level_by_hand():
    text = "我爱北京天安门。"  # 7 words of one character
    r = mycelium.evaluate([[2, 4]], [[3, 8]], text=text, granularity="word",
                          metrics=["character", "iou"])
    # refs {2,3}; preds {3,4,5,6} (the 。 at 7 is no word): tp 1, fp 3, fn 1.
    assert r["character"] == {"precision": 0.25, "recall": 0.5, "f1": 1 / 3}
    assert r["iou"]["score"] == 0.2


def test_sentence_level_metrics_by_hand():
    text = "One. Two. Three."  # sentences [0,4) [5,9) [10,16)
    r = mycelium.evaluate([[6, 7]], [[0, 6]], text=text, granularity="sentence",
                          metrics=["character", "iou", "exact_span"])
    # ref -> sentence 1; pred -> sentences 0 and 1.
    assert r["character"] == {"precision": 0.5, "recall": 1.0, "f1": 2 / 3}
    assert r["iou"]["score"] == 0.5
    assert r["exact_span"]["recall"] == 0.0
    split = mycelium.evaluate([[5, 16]], [[5, 9], [10, 12]], text=text,
                              granularity="sentence", metrics=["deteval_1d", "iou"])
    # units: ref [1,3); preds [1,2), [2,3): a split of one ref into two preds.
    assert split["iou"]["score"] == 1.0
    assert split["deteval_1d"]["precision"] == 0.8 and split["deteval_1d"]["recall"] == 0.8
    # F1 from the float credits 1.6/2 and 0.8/1 is 0.8000000000000002 (see report).
    assert split["deteval_1d"]["f1"] == pytest.approx(0.8, abs=1e-15)


def test_char_granularity_is_the_default_and_unchanged():
    refs = [[[0, 10], [12, 15]], [[4, 7]], []]
    preds = [[[2, 8]], [[4, 7]], [[1, 3]]]
    texts = ["x" * 20, "y" * 10, "z" * 5]
    for average in ("macro", "micro"):
        a = mycelium.evaluate(refs, preds, text=texts, average=average)
        b = mycelium.evaluate(refs, preds, text=texts, average=average, granularity="char")
        assert a == b
        assert a["meta"]["granularity"] == "char"
        assert flat(a) == flat(mycelium.evaluate(refs, preds, average=average))


def test_granularity_without_text_raises():
    with pytest.raises(ValueError, match="needs the text"):
        mycelium.evaluate([[[0, 3]]], [[[0, 3]]], granularity="word")
    with pytest.raises(ValueError, match="needs the text"):
        mycelium.evaluate([[[0, 3]], [[0, 1]]], [[[0, 3]], []], text=["abc", None],
                          granularity="sentence")


def test_signature_records_granularity():
    r = mycelium.evaluate([[0, 3]], [[0, 3]], text="abc def", granularity="word",
                          metrics="iou")
    assert "|granularity:word" in r["meta"]["signature"]
    assert parse_signature(r["meta"]["signature"])["granularity"] == "word"
    assert r["meta"]["granularity"] == "word"


def test_granularity_works_with_dropped_examples_and_arrow_text():
    pa = pytest.importorskip("pyarrow")
    refs = [[[4, 11]], None, [[0, 5]]]
    preds = [[[5, 9]], [[0, 1]], [[5, 8]]]
    texts = pa.array([TEXTS[0], "zzz", TEXTS[1]])
    r = mycelium.evaluate(refs, preds, text=texts, granularity="word", missing="drop",
                          average="micro", metrics=["iou"])
    assert r["iou"]["score"] == 2 / 3 and r["meta"]["dropped"] == 1


def test_ci_at_word_granularity_uses_unit_statistics():
    refs = [[[4, 11]], [[0, 5]]] * 10
    preds = [[[5, 9]], [[5, 8]]] * 10
    r = mycelium.evaluate(refs, preds, text=TEXTS * 10, granularity="word", ci=0.9,
                          n_resamples=200, metrics=["iou"], progress=False)
    # Per example iou is 1 or 0: the interval lies strictly inside (0, 1) around 0.5.
    assert r["iou"]["score"] == 0.5
    assert 0.2 < r["ci"]["iou"]["score"]["low"] < 0.5 < r["ci"]["iou"]["score"]["high"] < 0.8


def test_zero_length_spans_mark_nothing_at_word_granularity():
    r = mycelium.evaluate([[3, 3]], [[0, 5]], text="hello world", granularity="word",
                          metrics=["character"])
    # Like at character granularity: no reference units, one predicted word.
    assert r["character"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


@pytest.mark.parametrize("granularity", ["word", "sentence"])
def test_unit_spans_agree_with_a_slow_reference_mapping(granularity):
    from mycelium.evaluate import prepare

    rng = np.random.default_rng(0)
    texts = ["Ein Satz, zwei Wörter. 中文字。 ok", "नमस्ते दुनिया! abc", "  x  ", "A. B. C."]
    refs, preds, text = [], [], []
    for _ in range(300):
        t = texts[int(rng.integers(0, len(texts)))]
        spans = []
        for _ in range(int(rng.integers(0, 3))):
            s = int(rng.integers(0, len(t)))
            spans.append([s, int(rng.integers(s + 1, len(t) + 1))])
        refs.append(spans)
        preds.append([])
        text.append(t)
    got = prepare(refs, preds, text=text, granularity=granularity).refs
    for k, (spans, t) in enumerate(zip(refs, text)):
        units = _units(t, granularity)
        want = set()
        for s, e in spans:
            touched = [i for i, (us, ue) in enumerate(units) if us < e and s < ue]
            if touched:
                want.add((touched[0], touched[-1] + 1))
        lo, hi = got.offsets[k], got.offsets[k + 1]
        assert set(zip(got.starts[lo:hi].tolist(), got.ends[lo:hi].tolist())) == want, k
