"""The README, the Markdown and the figures cannot drift from the tables: the committed
README is the rendering of the committed tables, a changed number fails the check, a
number typed into the template is refused, and every committed figure carries the
fingerprint of the committed tables it is drawn from."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest

from validation import check, figtitles, pngmeta, readme
from validation.run import FIGURES, MIN_ITEMS, PROVENANCE_MIN_ITEMS

RESULTS = Path(__file__).resolve().parents[2] / "validation" / "results"


@pytest.fixture(scope="module")
def committed():
    return {p.stem: pd.read_csv(p, keep_default_na=False, na_values=[""])
            for p in RESULTS.glob("*.csv")}


def test_committed_readme_is_the_rendering_of_the_committed_tables(committed):
    assert readme.check(committed, readme.README) == []


def test_a_changed_readme_number_fails(committed, tmp_path):
    text = readme.README.read_text(encoding="utf-8")
    needle = "0.705 [0.695, 0.715]"              # the pooled annotator IoU (finding 5)
    assert needle in text
    changed = tmp_path / "README.md"
    changed.write_text(text.replace(needle, "0.706 [0.695, 0.715]", 1), encoding="utf-8")
    problems = readme.check(committed, changed)
    assert len(problems) == 1 and "0.706" in problems[0] and "0.705" in problems[0]


def test_a_changed_table_changes_the_readme(committed):
    t = dict(committed)
    lw = t["language_weighting"].copy()
    lw.loc[lw.index[0], "pooled_iou"] += 0.01
    t["language_weighting"] = lw
    assert readme.render(t) != readme.README.read_text(encoding="utf-8")


def test_numbers_typed_into_the_template_are_refused():
    template = readme.TEMPLATE.read_text(encoding="utf-8")
    assert readme.literal_numbers(template) == []
    assert readme.literal_numbers("IoU was 0.71 in {{languages}} languages") == ["0.71"]
    assert readme.literal_numbers("1. **SemEval-2025 Task 3** on `fig8.png`") == []


def test_directions_typed_into_the_template_are_refused(committed, tmp_path):
    template = readme.TEMPLATE.read_text(encoding="utf-8")
    assert readme.literal_directions(template) == []
    assert readme.literal_directions("The classifier beats mark-all; IoU is higher.") == [
        "beats", "higher"]
    # a phrase of DIRECTION_PHRASES is allowed only as written
    assert readme.literal_directions("beats mark-all in {{clf_beats}} of") == []
    assert readme.literal_directions("beats mark-all everywhere") == ["beats"]


def test_a_direction_claim_follows_the_tables(committed):
    t = dict(committed)
    tw = t["annotators_two_way"].copy()
    en = tw["lang"] == "EN"
    assert readme.claims.CLAIMS["two_way_widens"](t) == "widens"
    tw.loc[en, "iou_a_two_way_low"] = tw.loc[en, "iou_a_low"] + 0.001
    tw.loc[en, "iou_a_two_way_high"] = tw.loc[en, "iou_a_high"] - 0.001
    t["annotators_two_way"] = tw
    assert readme.claims.CLAIMS["two_way_widens"](t) == "narrows"


def test_unknown_and_unused_claims_are_errors(committed):
    with pytest.raises(ValueError, match="nope"):
        readme.render(committed, "{{nope}}")
    with pytest.raises(ValueError, match="unused"):
        readme.render(committed, "{{languages}}")


def test_committed_figures_carry_the_committed_tables_fingerprint(committed):
    assert check.compare_figures(committed, RESULTS, FIGURES) == []
    t = dict(committed)
    eff = t["convention_effects"].copy()
    eff.loc[eff.index[0], "tau"] += 0.001
    t["convention_effects"] = eff
    problems = check.compare_figures(t, RESULTS, FIGURES)
    assert len(problems) == 1 and problems[0].startswith("fig8_convention_table.png")


def _titles(tables):
    return figtitles.titles(tables, min_items=MIN_ITEMS, prov_min_items=PROVENANCE_MIN_ITEMS)


def test_committed_figures_carry_the_titles_the_tables_give(committed):
    assert check.compare_figures(committed, RESULTS, FIGURES, _titles(committed)) == []
    assert set(_titles(committed)) == set(FIGURES)


def test_a_title_whose_number_or_direction_changes_fails(committed):
    """A change the fingerprint also sees (fig5's tables), and the direction word: with
    the hard labels lowering the annotators' IoU the title must say "lower"."""
    t = dict(committed)
    tw = t["annotators_two_way"].copy()
    tw["iou_a"] = tw["iou_b"] - 0.01
    t["annotators_two_way"] = tw
    titles = _titles(t)
    assert "lower the annotators' IoU by 0.01" in titles["fig5_humans_and_systems"]["suptitle"]
    problems = check.compare_figures(committed, RESULTS, FIGURES, titles)
    assert len(problems) == 1 and problems[0].startswith("fig5_humans_and_systems.png: titled")


def test_numbers_typed_into_a_title_are_refused(monkeypatch):
    assert figtitles.literal_numbers() == []
    monkeypatch.setitem(figtitles.TEMPLATES, "fig3_metric_tau",
                        {"title": "IoU and Span Coverage F1 agree at 0.22 ({spancov:.2f})"})
    assert figtitles.literal_numbers() == ["fig3_metric_tau.title: 0.22"]
    problems = check.compare_figures({}, RESULTS, FIGURES)
    assert problems and "0.22" in problems[0]


def test_direction_words_follow_the_signs():
    assert figtitles.direction([0.1, 0.2]) == "more"
    assert figtitles.direction([-0.1], "raise", "lower") == "lower"
    assert figtitles.direction([0.1, -0.2]) == "neither more nor less"


def test_png_text_round_trip(tmp_path):
    src = RESULTS / "fig3_metric_tau.png"
    path = tmp_path / "f.png"
    shutil.copy(src, path)
    pngmeta.add_text(path, "k", "v")
    assert pngmeta.read_text(path)["k"] == "v"
    assert pngmeta.read_text(path)[pngmeta.KEY].startswith("sha256:")


def test_markdown_and_tables_compare_line_by_line(tmp_path):
    new, old = tmp_path / "new", tmp_path / "old"
    new.mkdir()
    old.mkdir()
    (new / "a.md").write_text("# t\n| x | 0.100 |\n", encoding="utf-8")
    (old / "a.md").write_text("# t\n| x | 0.101 |\n", encoding="utf-8")
    assert check.compare_text(new, old) == [
        "a.md: line 2: committed '| x | 0.101 |', reproduced '| x | 0.100 |'"]
    pd.DataFrame({"lang": ["EN"], "v": [1.0]}).to_csv(old / "gone.csv", index=False)
    assert check.compare(new, old, None) == [
        f"gone.csv: committed in {old} but no longer written by the run"]
