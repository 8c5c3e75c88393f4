"""A page is bounded: one huge example (a long text with many spans) is cut to what a
page holds, and the page says what was left out; the values beside the rows stay those
of the whole example."""

from __future__ import annotations

import re

import mycelium
from mycelium.report.render import MAX_SPANS_SHOWN, MAX_TEXT_SHOWN


def _huge(n_chars: int, n_spans: int):
    text = ("lorem ipsum " * (n_chars // 12 + 1))[:n_chars]
    step = n_chars // n_spans
    refs = [[k * step, k * step + 3] for k in range(n_spans)]
    preds = [[k * step + 1, k * step + 4] for k in range(n_spans)]
    return text, refs, preds


def test_a_long_text_with_many_spans_makes_a_bounded_page():
    text, refs, preds = _huge(300_000, 30_000)  # about 10 MB of page before the bound
    view = mycelium.show(text, refs, preds, metrics=["iou"])
    html = view.html()
    assert len(html.encode("utf-8")) < 2_000_000
    # one per predicted span that meets a reference, and the legend's swatch
    shown = html.count('class="myc-both"') - 1
    assert 0 < shown <= MAX_SPANS_SHOWN
    note = re.search(r'<div class="myc-why">([^<]*left out[^<]*)</div>', html)
    assert note is not None
    words = note.group(1)
    assert "of 300000 characters" in words and f"of {len(refs)} reference spans" in words
    # the IoU beside the row is the whole example's (3 shared of 4 marked, every span)
    iou = mycelium.evaluate(refs, preds, text=text, metrics=["iou"])["iou"]["score"]
    assert f"{iou:.3f}"[:4] in html


def test_a_long_text_alone_is_cut_at_the_character_bound():
    text = "x" * (MAX_TEXT_SHOWN + 5_000)
    html = mycelium.show(text, [[0, 2]], [[0, 2]]).html()
    # [0, 2) is drawn marked, then the unmarked rest up to the bound
    rest = MAX_TEXT_SHOWN - 2
    assert "x" * rest in html and "x" * (rest + 1) not in html
    assert f"of {len(text)} characters" in html


def test_a_small_example_is_drawn_whole_without_a_note():
    html = mycelium.show("Paris is in Peru.", [[12, 16]], [[12, 16]]).html()
    assert "left out" not in html
