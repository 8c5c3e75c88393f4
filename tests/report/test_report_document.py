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
    # the 3 worst of each detector in each of the 4 languages
    assert report.count('<div class="myc-example"') == 4 * 4 * 3


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
    assert section.count('<div class="myc-example"') == 3  # ReportOptions.examples


def test_glossary_comes_from_each_metric_s_docstring(report):
    from mycelium.metrics import iou, span_coverage

    section = report[report.index('<section id="glossary">'):]
    section = section[:section.index("</section>")]
    for m in ("exact_span", "iou", "character", "deteval_1d", "cleval_1d", "span_coverage"):
        assert f"<tr><th>{m}</th>" in section
    first = iou.__doc__.strip().splitlines()[0].split(": ", 1)[1].replace("``", "")
    assert f"<td>{first}</td>" in section
    assert "Both sides empty → score 1.0, as the official Mu-SHROOM scorer" in section
    assert span_coverage.__doc__.strip().splitlines()[0].split(": ", 1)[1] in section
    assert "<b>macro</b>: each example&#x27;s value first" in section
    assert "<i>(this report)</i>" in section and "here 0.0" in section


def test_worst_examples_per_group_titled_by_id_ties_by_marked_characters(detections):
    html = build_report(detections, "ref_spans", "pred_spans", detector_col="detector",
                        text_col="text", by="lang", example_col="id", example_name="id",
                        options=ReportOptions(ci=None, examples=2))
    section = html[html.index('<section id="examples">'):]
    titles = re.findall(r'<div class="myc-title">([^<]*)</div>', section)
    assert len(titles) == 4 * 4 * 2
    part = detections[detections.detector == "careful"]
    scores = part.mycelium.score("ref_spans", "pred_spans", text="text", metrics=["iou"])
    marked = mycelium.statistics(part.ref_spans.tolist(), part.pred_spans.tolist(),
                                 metrics=["iou"])["iou"]["union"]
    want = []
    for lang in sorted(part.lang.unique()):
        rows = [(scores.iou_score.iloc[k], -marked[k], k) for k in range(len(part))
                if part.lang.iloc[k] == lang]
        for v, _, k in sorted(rows)[:2]:
            want.append(f"id {part.id.iloc[k]} · lang={lang} · iou_score {v:.3f}")
    assert titles[:8] == want
    assert all(t.startswith("id ex-") for t in titles)


def test_context_column_is_shown_collapsed_above_the_text(detections):
    frame = detections.assign(question="What is true about: " + detections.text.str[:12])
    html = build_report(frame, "ref_spans", "pred_spans", detector_col="detector",
                        text_col="text", example_col="id", context_col="question",
                        options=ReportOptions(ci=None, examples=1))
    section = html[html.index('<section id="examples">'):]
    assert section.count('<details class="myc-context">') == 4
    first = re.search(r'<details class="myc-context"><summary>context</summary>'
                      r'<div class="myc-context-text" dir="auto">([^<]*)</div></details>',
                      section)
    assert first and first.group(1).startswith("What is true about: ")


def test_agreement_says_how_many_detectors_and_hides_below_four(detections, report):
    assert "Metric agreement over 4 detectors" in report
    assert "with 4 detectors tau moves in steps of 0.333" in report
    three = detections[detections.detector != "random"]
    html = build_report(three, "ref_spans", "pred_spans", detector_col="detector",
                        options=ReportOptions(ci=None))
    assert "myc-heatmap" not in html
    assert ("The metric agreement needs 4 detectors or more; this report has 3. With 3 "
            "detector(s), Kendall's tau between two rankings takes only the values "
            "\u00b11/3, \u00b11, and two rankings agree perfectly by chance one time in 6."
            ) in html


def test_a_row_with_examples_empty_on_both_sides_says_why():
    frame = pd.DataFrame({"detector": ["a", "a", "b", "b"], "text": ["abcd"] * 4,
                          "ref": [[[0, 2]], [], [[0, 2]], []],
                          "pred": [[[0, 2]], [], [[1, 3]], [[0, 1]]]})
    html = build_report(frame, "ref", "pred", detector_col="detector", text_col="text",
                        options=ReportOptions(ci=None))
    overall = html[html.index('<section id="overall">'):html.index('<section id="figures">')]
    assert overall.count('<td class="why">1 of 2</td>') == 1
    assert '<td class="why"></td>' in overall  # b has none
    assert "Each such example scores iou 1.0 (the official Mu-SHROOM rule) but precision, " \
        "recall and F1 0/0" in overall
    assert "a: no reference and no predicted span, so iou is 1 (the official Mu-SHROOM " \
        "rule for an example empty on both sides)" in html


def test_past_seven_groups_each_measure_gets_a_panel_and_no_colour_repeats():
    from mycelium.report.figures import GROUP_COLOURS, SAFE_GROUPS, bars

    langs = [f"l{i:02d}" for i in range(14)]
    values = {(m, g): (i + 1) / 20 for m in ("iou score", "character f1")
              for i, g in enumerate(langs)}
    few = bars("d", ["iou score"], langs[:SAFE_GROUPS], values)
    fills = re.findall(r'class="myc-bar"[^>]*fill="(#[0-9A-Fa-f]{6})"', few)
    assert len(fills) == len(set(fills)) == SAFE_GROUPS  # one colour per group
    assert "#F0E442" not in GROUP_COLOURS  # Okabe-Ito's yellow: 1.3:1 on white
    many = bars("d", ["iou score", "character f1"], langs, values)
    assert many.count('class="myc-figure myc-multiple"') == 2
    assert set(re.findall(r'class="myc-bar"[^>]*fill="(#[0-9A-Fa-f]{6})"', many)) == \
        {GROUP_COLOURS[0]}
    for lang in langs:  # every group named beside its bar, in each panel
        assert many.count(f'text-anchor="end">{lang}</text>') == 2
    assert many.count(">0.700</text>") == 2  # l13's value written beside its bar
