"""The views in a real browser: Chromium, headless, renders the report and a `show` page
from disk; the DOM it built has the tables, figures and marked spans, nothing from the
text ran, and the screenshots show the palette's colours (not a blank page). At 480 px
neither the report nor a view scrolls sideways; inside JupyterLab's own table rules
(a copy in ``fixtures/``) the view's text stays left-aligned and unstriped; and in a grey
screenshot the three outcomes still differ.

Skipped when no Chromium is installed (``.ci/run`` installs Debian's ``chromium``).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import mycelium
from mycelium.cli.app import main

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser",
                                               "google-chrome")) if p), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None,
                                reason="no chromium on PATH (apt-get install chromium)")
DATA = Path(__file__).resolve().parents[2] / "examples" / "data"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--force-device-scale-factor=1", "--hide-scrollbars"]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def chromium(tmp_path: Path, page: Path, *args: str) -> str:
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    profile.mkdir()
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args,
                           page.as_uri()], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def colours_present(png: Path, wanted: dict[str, str], tolerance: int = 8) -> dict:
    """For each named ``#rrggbb``, the number of screenshot pixels within ``tolerance``."""
    image = pytest.importorskip("PIL.Image", reason="Pillow reads the screenshot")
    import numpy as np

    pixels = np.asarray(image.open(png).convert("RGB"), dtype=np.int16).reshape(-1, 3)
    out = {}
    for name, hexa in wanted.items():
        rgb = np.array([int(hexa[i:i + 2], 16) for i in (1, 3, 5)], dtype=np.int16)
        out[name] = int((np.abs(pixels - rgb).max(axis=1) <= tolerance).sum())
    return out


@pytest.fixture(scope="module")
def report_page(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    preds = sorted(str(p) for p in (DATA / "predictions").glob("*.jsonl"))
    assert main(["report", str(DATA / "references.jsonl"), *preds, "--ref-col", "spans",
                 "--pred-col", "spans", "--text-col", "text", "--id-col", "id", "--by",
                 "lang", "--resamples", "200", "-o", str(out)]) == 0
    return out


def show_page(path: Path) -> Path:
    texts = ["The tower <script>document.title='ran'</script> is 410 metres tall.",
             "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645",
             "\u6771\u4eac\u306f\u65e5\u672c\u306e\u9996\u90fd \U0001F469\u200d\U0001F4BB "
             "cafe\u0301"]
    view = mycelium.show(texts, [[[51, 61]], [[6, 13]], [[0, 2], [13, 17]]],
                         {"detector": [[[54, 66]], [[0, 5]], [[1, 3], [9, 11]]]})
    path.write_text(view.html(title="show"), encoding="utf-8")
    return path


def test_report_dom_has_tables_figures_and_spans(tmp_path, report_page):
    dom = chromium(tmp_path, report_page, "--dump-dom")
    assert dom.count('<table class="myc-results">') == 5 + 1  # and the disagreement's
    assert dom.count('class="myc-figure"') == 4 and dom.count('myc-heatmap') == 1
    assert dom.count('class="myc-bar"') > 50
    assert dom.count('<div class="myc-example"') == 4 * 4 * 3 + 3  # per group; disagreement
    for cls in ("myc-both", "myc-ref", "myc-pred", "myc-span"):
        assert f'<span class="{cls}' in dom


def test_report_screenshot_shows_the_palette(tmp_path, report_page):
    png = tmp_path / "report.png"
    chromium(tmp_path, report_page, f"--screenshot={png}", "--window-size=1200,3200")
    seen = colours_present(png, {"blue bars": "#0072B2", "orange bars": "#E69F00",
                                 "green bars": "#009E73", "white": "#ffffff",
                                 "text": "#111111"})
    assert all(n > 200 for n in seen.values()), seen


def test_show_page_renders_scripts_as_text_and_marks_spans(tmp_path):
    page = show_page(tmp_path / "show.html")
    dom = chromium(tmp_path, page, "--dump-dom")
    assert "<title>show</title>" in dom  # the text's script did not run
    assert "&lt;script&gt;document.title='ran'&lt;/script&gt;" in dom
    assert dom.count("<script") == 0
    assert '<span class="myc-both" data-s="54" data-e="61"' in dom
    assert 'data-s="6" data-e="13" title="reference only (missed)">' \
           '\u0628\u0627\u0644\u0639\u0627\u0644\u0645</span>' in dom
    # whole clusters: [9, 11) ends inside the ZWJ sequence, [13, 17) before the accent
    assert 'title="prediction only (false alarm); predicted [9, 11)">' \
           '\U0001F469\u200d\U0001F4BB</span>' in dom
    assert dom.count('title="reference only (missed)">cafe\u0301</span>') == 1
    png = tmp_path / "show.png"
    chromium(tmp_path, page, f"--screenshot={png}", "--window-size=1000,500")
    seen = colours_present(png, {"both": "#5aaee3", "reference only": "#ffe2a6",
                                 "prediction only": "#e49ac6", "white": "#ffffff"})
    assert all(n > 30 for n in seen.values()), seen


def test_narrow_window_keeps_words_whole_and_the_text_column_wide(tmp_path):
    # In a 480 px notebook column the text cell once shrank to two characters a line
    # (words broken anywhere, the metrics column never wrapping); it keeps 14em now.
    view = mycelium.show("Marie Curie won three Nobel prizes in 1911 and 1903.", [[22, 27]],
                         {"a": [[16, 27]], "b": [[38, 51]]},
                         soft_predictions=[{"start": 16, "end": 27, "prob": 0.7}])
    probe = ("<script>const td = document.querySelector('td.myc-text');"
             "const m = document.querySelector('td.myc-metrics');"
             "document.body.setAttribute('data-text-width', Math.round("
             "td.getBoundingClientRect().width));"
             "document.body.setAttribute('data-metrics-right', Math.round("
             "m.getBoundingClientRect().right));</script>")
    page = tmp_path / "narrow.html"
    page.write_text(view.html().replace("</body>", probe + "</body>"), encoding="utf-8")
    dom = chromium(tmp_path, page, "--dump-dom", "--window-size=480,600")
    import re

    width = int(re.search(r'data-text-width="(\d+)"', dom).group(1))
    right = int(re.search(r'data-metrics-right="(\d+)"', dom).group(1))
    assert width >= 180, width  # 14em of 14px, not a column of two characters
    assert right <= 480, right  # the metrics wrap inside the window
    assert 'class="myc-soft myc-soft-hi"' in dom and "score 0 \u2192 1" in dom


def at_480(tmp_path: Path, inner: Path, watch: str = "*") -> tuple[int, int, int, str]:
    """The scroll width, client width and window width of ``inner`` shown in a frame 480
    px wide (Chromium's headless window is at least 500 px), and what sticks out (of the
    elements matching the CSS selector ``watch``)."""
    import re

    host = tmp_path / "host.html"
    host.write_text(
        "<!DOCTYPE html><html><body style='margin:0'>"
        f"<iframe id='f' src='{inner.name}' width='480' height='900' style='border:0'>"
        "</iframe><script>document.getElementById('f').addEventListener('load', () => {"
        "const w = document.getElementById('f').contentWindow;"
        "const d = w.document.documentElement; const wide = [];"
        f"for (const e of w.document.body.querySelectorAll('{watch}')) {{"
        "  const r = e.getBoundingClientRect();"
        "  if (r.right > d.clientWidth + 0.5) wide.push(e.tagName + '.' + e.className);"
        "}"
        "document.body.setAttribute('data-widths', [d.scrollWidth, d.clientWidth,"
        "  w.innerWidth].join(','));"
        "document.body.setAttribute('data-wide', wide.slice(0, 5).join(' '));"
        "});</script></body></html>", encoding="utf-8")
    dom = chromium(tmp_path, host, "--dump-dom", "--window-size=600,1000",
                   "--allow-file-access-from-files", "--virtual-time-budget=5000")
    scroll, client, inner_w = map(int, re.search(r'data-widths="([^"]*)"', dom).group(1)
                                  .split(","))
    return scroll, client, inner_w, re.search(r'data-wide="([^"]*)"', dom).group(1)


def test_at_480_px_the_report_does_not_scroll_sideways(tmp_path, report_page):
    page = tmp_path / "report.html"
    page.write_text(report_page.read_text(encoding="utf-8"), encoding="utf-8")
    scroll, client, inner, wide = at_480(tmp_path, page)
    assert inner == 480 and scroll <= client, (scroll, client, inner, wide)
    # what is wider than the window scrolls inside its own box
    assert page.read_text(encoding="utf-8").count('<div class="myc-scroll">') >= 5 + 2


def test_at_480_px_a_view_with_a_long_url_does_not_scroll_sideways(tmp_path):
    url = "https://example.org/" + "a-very-long-path-segment/" * 8 + "?q=" + "x" * 60
    view = mycelium.show(f"See {url} for the source; it was founded in 1925.",
                         [[4, 4 + len(url)]], {"detector-with-a-long-name": [[0, 20]]},
                         context="Where is the source? " + url)
    page = tmp_path / "show.html"
    page.write_text(view.html(), encoding="utf-8")
    scroll, client, inner, wide = at_480(tmp_path, page)
    assert inner == 480 and scroll <= client, (scroll, client, inner, wide)


def probed(page: Path, html: str, probe: str) -> Path:
    page.write_text(html.replace("</body>", probe + "</body>"), encoding="utf-8")
    return page


ALIGNMENT = ("<script>const out = [];"
             "for (const td of document.querySelectorAll('td.myc-text')) {"
             "  const r = document.createRange(); r.setStart(td.firstChild.nodeType === 3 ?"
             "    td.firstChild : td.firstChild.firstChild, 0);"
             "  r.setEnd(r.startContainer, 1);"
             "  const s = getComputedStyle(td);"
             "  out.push([Math.round(r.getBoundingClientRect().left -"
             "    td.getBoundingClientRect().left), s.textAlign,"
             "    getComputedStyle(td.parentElement).backgroundColor].join('|'));"
             "}"
             "document.body.setAttribute('data-cells', out.join(';'));</script>")


def test_inside_jupyterlab_s_table_rules_the_text_stays_left_aligned(tmp_path):
    css = (FIXTURES / "jupyterlab_rendermime.css").read_text(encoding="utf-8")
    view = mycelium.show(["A short text.", "A longer text that reaches further right.",
                          "Mid-length text here."],
                         [[[2, 7]], [[9, 13]], [[0, 3]]],
                         {"a": [[[2, 7]], [], [[0, 9]]], "b": [[], [[2, 8]], []]})
    html = ("<!DOCTYPE html><html><head><meta charset='utf-8'><style>" + css
            + "</style></head><body><div class='jp-RenderedHTMLCommon jp-RenderedHTML "
            "jp-OutputArea-output' data-mime-type='text/html'>" + view._repr_html_()
            + "</div></body></html>")
    page = probed(tmp_path / "notebook.html", html, ALIGNMENT)
    dom = chromium(tmp_path, page, "--dump-dom", "--window-size=1000,800")
    import re

    cells = [c.split("|") for c in re.search(r'data-cells="([^"]*)"', dom).group(1).split(";")]
    assert len(cells) == 3 * 3  # reference, a, b for each example
    offsets = {int(c[0]) for c in cells}
    assert len(offsets) == 1 and offsets.pop() <= 8, cells  # every text starts at the left
    assert {c[1] for c in cells} <= {"left", "start"}, cells
    assert {c[2] for c in cells} == {"rgba(0, 0, 0, 0)"}, cells  # no zebra rows


GREY_RECTS = ("<script>const out = [];"
              "for (const cls of ['myc-both', 'myc-ref', 'myc-pred']) {"
              "  const r = document.querySelector('td.myc-text span.' + cls)"
              "    .getBoundingClientRect();"
              "  out.push([cls, r.left, r.top, r.right, r.bottom].join(','));"
              "}"
              "document.body.setAttribute('data-rects', out.join(';'));</script>")


def test_in_grey_scale_the_three_outcomes_stay_apart(tmp_path):
    image = pytest.importorskip("PIL.Image", reason="Pillow reads the screenshot")
    import re

    import numpy as np

    blank = "\u00a0" * 12  # no glyphs: only what marks the outcome is measured
    text = blank + " " + blank + " " + blank + " " + blank
    starts = [0, 13, 26, 39]
    view = mycelium.show(text, [[starts[0], starts[0] + 12], [starts[1], starts[1] + 12]],
                         {"detector": [[starts[0], starts[0] + 12],
                                       [starts[2], starts[2] + 12]]}, metrics=None)
    page = probed(tmp_path / "grey.html", view.html(), GREY_RECTS)
    dom = chromium(tmp_path, page, "--dump-dom", "--window-size=800,400")
    rects = {p.split(",")[0]: [float(x) for x in p.split(",")[1:]]
             for p in re.search(r'data-rects="([^"]*)"', dom).group(1).split(";")}
    png = tmp_path / "grey.png"
    chromium(tmp_path, page, f"--screenshot={png}", "--window-size=800,400")
    grey = np.asarray(image.open(png).convert("L"), dtype=np.float64)
    stats = {}
    for cls, (left, top, right, bottom) in rects.items():
        h = bottom - top  # the middle of the box: away from underlines and outlines
        box = grey[int(top + 0.3 * h):int(bottom - 0.3 * h), int(left) + 3:int(right) - 3]
        stats[cls] = (float(np.median(box)), float(box.std()))
    (both_m, both_s), (ref_m, ref_s), (pred_m, pred_s) = (
        stats["myc-both"], stats["myc-ref"], stats["myc-pred"])
    assert abs(both_m - ref_m) >= 40, stats  # lightness tells both from missed
    assert pred_s >= 15 and both_s <= 5 and ref_s <= 5, stats  # the hatching, false alarms
    assert abs(pred_m - both_m) >= 25, stats


VISIONS = DATA / "shroom_visions"


@pytest.mark.parametrize("typed_matching", [False, True])
def test_at_480_px_the_per_type_section_does_not_scroll_sideways(tmp_path, typed_matching):
    page = tmp_path / "types.html"
    assert main(["report", str(VISIONS / "gold.jsonl"), str(VISIONS / "pred.jsonl"),
                 "--ref-col", "labels", "--pred-col", "labels", "--text-col", "response",
                 "--id-col", "id", "--type-field", "label", "--ci", "0", "-o", str(page)]
                + (["--typed-matching"] if typed_matching else [])) == 0
    scroll, client, inner, wide = at_480(tmp_path, page, "table.myc-types *")
    assert inner == 480 and scroll <= client, (scroll, client, inner, wide)
    # each type is a card of labelled values: nothing scrolls, not even inside its box
    assert wide == "", wide


def test_span_types_draw_their_colours_and_the_legend_counts(tmp_path):
    from mycelium.report.render import TYPE_COLOURS

    text = "A red tram crosses the bridge while a man in a yellow coat waves."
    names = ["OCR", "miscounting", "invention", "other", "mischaracterization"]
    refs = [{"start": 2 + 12 * k, "end": 10 + 12 * k, "label": t} for k, t in enumerate(names)]
    preds = [{"start": 2, "end": 10, "label": "OCR"}, {"start": 47, "end": 58, "label": "other"}]
    page = tmp_path / "typed.html"
    page.write_text(mycelium.show(text, refs, {"det": preds}, type_field="label")
                    .html(title="typed"), encoding="utf-8")
    dom = chromium(tmp_path, page, "--dump-dom")
    for k, name in enumerate(names):
        n_pred = 1 if name in ("OCR", "other") else 0
        assert (f'<span class="myc-span myc-type-{k}" style="--myc-type:{TYPE_COLOURS[k]};'
                f'--myc-pattern:') in dom
        assert (f'>{name}</span><span class="myc-count">1 reference, {n_pred} predicted'
                "</span>") in dom
    png = tmp_path / "typed.png"
    chromium(tmp_path, page, f"--screenshot={png}", "--window-size=900,400")
    seen = colours_present(png, {n: TYPE_COLOURS[k] for k, n in enumerate(names)}, 12)
    assert all(n > 20 for n in seen.values()), seen  # each type's underline is drawn


def test_at_480_px_the_shroom_visions_page_does_not_scroll_sideways(tmp_path):
    page = tmp_path / "visions.html"
    assert main(["shroom-visions", str(VISIONS / "gold.jsonl"), str(VISIONS / "pred.jsonl"),
                 str(tmp_path / "out.txt"), "--html", str(page)]) == 0
    scroll, client, inner, wide = at_480(tmp_path, page, "table.myc-types *")
    assert inner == 480 and scroll <= client, (scroll, client, inner, wide)
    assert wide == "", wide  # per label and per item: cards of labelled values


def test_at_480_px_a_legend_with_long_type_names_does_not_scroll_sideways(tmp_path):
    text = "A red tram crosses the bridge while a man in a yellow coat waves."
    refs = [{"start": 2, "end": 10, "label": "mischaracterization-of-" + "colour" * 20},
            {"start": 47, "end": 58, "label": "invention"}]
    page = tmp_path / "legend.html"
    page.write_text(mycelium.show(text, refs, [refs[:1]], type_field="label")
                    .html(title="legend"), encoding="utf-8")
    scroll, client, inner, wide = at_480(tmp_path, page, ".myc-legend *")
    assert inner == 480 and scroll <= client, (scroll, client, inner, wide)
    assert wide == "", wide
