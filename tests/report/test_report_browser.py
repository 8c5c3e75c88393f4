"""The views in a real browser: Chromium, headless, renders the report and a `show` page
from disk; the DOM it built has the tables, figures and marked spans, nothing from the
text ran, and the screenshots show the palette's colours (not a blank page).

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
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


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
    assert dom.count('<div class="myc-example"') == 20 + 5
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
    seen = colours_present(png, {"both": "#a6d8f5", "reference only": "#f7c873",
                                 "prediction only": "#efc3dd", "white": "#ffffff"})
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
