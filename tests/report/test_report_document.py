"""The HTML report: its sections and numbers, that it needs nothing from the network,
escaping, and the size guard on the example views."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import mycelium  # noqa: F401  (registers df.mycelium)
from mycelium.report.document import ReportOptions, build_report

DATA = Path(__file__).resolve().parents[2] / "examples" / "data" / "detections.jsonl"


@pytest.fixture(scope="module")
def detections():
    return pd.read_json(DATA, lines=True)


@pytest.fixture(scope="module")
def report(detections):
    return build_report(detections, "ref_spans", "pred_spans", detector_col="detector",
                        text_col="text", by="lang",
                        options=ReportOptions(title="Spans <&> report", n_resamples=200))


def test_sections_tables_and_figures(report):
    for section in ("settings", "overall", "groups", "figures", "agreement", "examples"):
        assert f'<section id="{section}">' in report
    assert report.count('<table class="myc-results">') == 1 + 4  # all rows, 4 languages
    assert [h for h in re.findall(r"<h3>(lang=\w+)</h3>", report)] == [
        "lang=de", "lang=en", "lang=fi", "lang=zh"]
    assert report.count('<svg xmlns="http://www.w3.org/2000/svg" class="myc-figure"') == 4
    assert report.count('class="myc-figure myc-heatmap"') == 1
    assert report.count('class="myc-cell"') == 16 * 16  # every measure against every one
    assert report.count('<div class="myc-example"') == 4 * 5  # 5 worst per detector


def test_numbers_are_the_accessor_s(detections, report):
    tidy = detections.mycelium.evaluate("ref_spans", "pred_spans", text="text",
                                        by="detector", metrics="iou", ci=0.95,
                                        n_resamples=200)
    row = tidy[tidy.detector == "careful"].iloc[0]
    assert (f"<td>{row.value:.3f} <span class=\"ci\">[{row.ci_low:.3f}, "
            f"{row.ci_high:.3f}]</span></td>") in report
    every = detections.mycelium.evaluate("ref_spans", "pred_spans", text="text",
                                         by="detector", ci=0.95, n_resamples=200)
    assert f'<code class="sig">{every.attrs["mycelium_signature"]}</code>' in report


def test_self_contained_and_escaped(report):
    assert "<script" not in report.lower()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", report)
    assert "@import" not in report and "url(" not in report
    assert "<title>Spans &lt;&amp;&gt; report</title>" in report
    assert "<h1>Spans &lt;&amp;&gt; report</h1>" in report


def test_large_frames_sample_the_example_views(detections):
    small = ReportOptions(ci=None, max_view_rows=100, seed=3)
    html = build_report(detections, "ref_spans", "pred_spans", detector_col="detector",
                        text_col="text", options=small)
    assert ("The report has 192 rows: the example views are drawn from a random sample "
            "of 100 of them (seed 3); the tables and figures use every row.") in html
    assert "random sample" not in build_report(
        detections, "ref_spans", "pred_spans", detector_col="detector", text_col="text",
        options=ReportOptions(ci=None))
    assert "intervals: none." in html
    fewer = build_report(detections, "ref_spans", "pred_spans", detector_col="detector",
                         options=ReportOptions(max_view_rows=100))
    assert ("intervals: 0.95 percentile bootstrap, 200 resamples (fewer than the usual 1000: "
            "the report has more than 100 rows; choose with --resamples).") in fewer
    assert "resamples:200|" in fewer
    grouped = build_report(detections, "ref_spans", "pred_spans", detector_col="detector",
                           by="lang", options=ReportOptions(max_view_rows=100))
    overall = grouped[grouped.index('<section id="overall">'):grouped.index('id="groups"')]
    assert 'class="ci"' not in overall
    assert "Intervals are on the per-group tables only above 100 rows." in overall
    assert 'class="ci"' in grouped[grouped.index('id="groups"'):]


def test_without_texts_the_views_say_why(detections):
    html = build_report(detections, "ref_spans", "pred_spans", detector_col="detector",
                        options=ReportOptions(ci=None))
    assert "No text column: the example views need the texts." in html
    assert '<div class="myc-example"' not in html


def test_largest_disagreement_is_explained(detections):
    html = build_report(detections, "ref_spans", "pred_spans", detector_col="detector",
                        text_col="text", example_col="id", options=ReportOptions(ci=None))
    section = html[html.index('<section id="disagreement">'):]
    section = section[:section.index("</section>")]
    careful = detections[detections.detector == "careful"]
    rand = detections[detections.detector == "random"].set_index("id").loc[careful.id]
    top = mycelium.explain(careful.ref_spans.tolist(), careful.pred_spans.tolist(),
                           rand.pred_spans.tolist(), text=careful.text.tolist(), n=5)
    assert f"careful minus random on iou score (macro): a - b: {top.attrs['difference']:.3f}" \
        in section
    first = careful.id.iloc[int(top.example[0])]
    assert f"<tr><td>{first}</td><td>{top.contribution[0]:+.4f}</td>" in section
    assert section.count('<div class="myc-example"') == 5
