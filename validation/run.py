"""``python -m validation.run``: the whole study, from the official files to
``validation/results/`` (tables as CSV and Markdown, figures as PNG).

Usage::

    python -m validation.run [--data DIR] [--systems DIR] [--languages en,de,...]
                             [--out DIR] [--seed N] [--no-figures] [--check]

``--data`` defaults to ``$MYCELIUM_MUSHROOM_DIR``; ``--systems`` (the real system outputs)
to ``$MYCELIUM_MUSHROOM_SYSTEMS_DIR``, else ``mushroom_systems`` beside the data. A run
of every language into the committed ``results/`` also renders ``validation/README.md``. Exit status 0 on success, 1 when the
data cannot be read, 2 for bad usage (including no data directory at all).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

import mycelium
from mycelium.core.signature import signature_with

from . import (annotators, comparison, data, faithbench_study, humans, provenance_tests,
               ranking, real_study, real_systems, report, review, scoring, token_baselines,
               rebuilt, twoway, undercoverage, visions_study)
from .flat import Flat
from .uncertainty import LEVEL, RESAMPLES, SEED, Resampler

DEFAULT_OUT = Path(__file__).resolve().parent / "results"
#: Annotator detectors of part 2: the most active annotators of each language.
MAX_ANNOTATORS = 6
MIN_ITEMS = 20
#: Generating models with fewer test items are not tested in the provenance figure.
PROVENANCE_MIN_ITEMS = 10


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m validation.run",
                                description="Reproduce the mycelium validation study on "
                                            "the Mu-SHROOM data.")
    p.add_argument("--data", help="directory holding the Mu-SHROOM splits/val/v2 and "
                   f"splits/test_labeled/v1 files (default: ${data.ENV_VAR})")
    p.add_argument("--systems", help="the real systems' mushroom_systems folder (default: "
                   f"${real_systems.ENV_VAR}, else mushroom_systems beside the data)")
    p.add_argument("--languages", help="comma-separated language codes (default: all)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT,
                   help="output directory (default: validation/results)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random detector")
    p.add_argument("--no-figures", dest="figures", action="store_false",
                   help="write tables only (figures need matplotlib)")
    p.add_argument("--check", action="store_true",
                   help="run into a temporary folder and compare every table with the "
                        "committed one in --out (rows of the chosen languages); exit 1 "
                        "on any difference")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if not (args.data or os.environ.get(data.ENV_VAR)):
        print(f"python -m validation.run: error: no data directory; pass --data DIR or set "
              f"{data.ENV_VAR} (see validation/README.md, 'Data').", file=sys.stderr)
        return 2
    if args.figures and not _have_matplotlib():
        print("python -m validation.run: error: figures need matplotlib; install it with "
              "`pip install 'mycelium[validation]'` or pass --no-figures.", file=sys.stderr)
        return 2
    languages = [x.strip() for x in args.languages.split(",")] if args.languages else None
    try:
        root = data.data_dir(args.data)
        if args.check:
            import tempfile

            from . import check

            with tempfile.TemporaryDirectory() as tmp:
                result = study(root, Path(tmp), languages=languages, seed=args.seed,
                               figures=False, systems=args.systems,
                               log=lambda msg: print(msg, flush=True))
                problems = check.compare(Path(tmp), args.out, languages)
                if languages is None:
                    problems += _check_outputs(Path(tmp), args.out, result["tables"])
                else:
                    print("check: Markdown, figures and README.md are checked only when "
                          "every language is run", flush=True)
            for line in problems:
                print(line, file=sys.stderr)
            what = "tables" if languages else "tables, Markdown, figures and README"
            print(f"check: {'FAILED' if problems else 'ok'}: the committed {what} of "
                  f"{args.out} {'differ' if problems else 'are reproduced'}"
                  f"{f' ({len(problems)} differences)' if problems else ''}", flush=True)
            return 1 if problems else 0
        study(root, args.out, languages=languages, seed=args.seed, figures=args.figures,
              systems=args.systems, log=lambda msg: print(msg, flush=True))
    except (data.DataError, ValueError, OSError) as exc:  # unreadable or invalid files
        print(f"python -m validation.run: error: {exc}", file=sys.stderr)
        return 1
    return 0


def readme_path(out: Path) -> Path:
    """The README a run writes or checks: ``validation/README.md`` for the committed
    results, ``<out>/README.md`` for any other output folder."""
    return out.resolve().parent / "README.md" if out.resolve() == DEFAULT_OUT else \
        out / "README.md"


def _check_outputs(new: Path, committed: Path, tables: dict) -> list[str]:
    from . import check, figtitles, readme

    return (check.compare_text(new, committed)
            + check.compare_figures(tables, committed, FIGURES, figtitles.titles(
                tables, min_items=MIN_ITEMS, prov_min_items=PROVENANCE_MIN_ITEMS))
            + readme.check(tables, readme_path(committed)))


def _have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def study(root: Path, out: Path, *, languages=None, seed: int = 0, figures: bool = True,
          systems: str | None = None, log=lambda msg: None) -> dict:
    """Run every part, write every output under ``out``; return the tables."""
    t0 = time.perf_counter()
    clock = _Clock(log, t0)
    items = data.load(root, languages)
    ann = data.annotations(items)
    hard = Flat.from_arrow(pa.array(items["hard_labels"]))
    soft_vecs = scoring.CorVectors(scoring.soft_vectors(items))
    lengths = items["text_len"].to_numpy()[ann.table["item"].to_numpy()]
    ann_vecs = scoring.CorVectors(scoring.binary_vectors(ann.clean, lengths))
    clock(f"loaded {len(items)} items, {len(ann.table)} annotations, "
          f"{items['lang'].nunique()} languages")

    part1 = annotators.run(items, ann, hard, soft_vecs, ann_vecs)
    recompute = annotators.recompute_check(items, ann, hard, soft_vecs)
    clock("part 1: inter-annotator analysis")
    frame, chosen = comparison.detector_frame(
        items, ann, hard, soft_vecs, part1["_frames"]["vs_hard"], seed=seed,
        max_annotators=MAX_ANNOTATORS, min_items=MIN_ITEMS)
    part2 = comparison.run(frame)
    clock("part 2: metric comparisons")
    part3 = undercoverage.run(part2["_per_example"], part2["detector_scores"],
                              part1["vs_hard"], hard, items)
    clock("part 3: under-coverage diagnostic")

    rs = Resampler(items["id"])
    tables = _tables(ann, part1, recompute, part2, part3, chosen)
    frames = part1["_frames"] | {"detectors": frame}
    boot = review.intervals(tables, frames, part2["_per_example"], rs, hard.counts)
    per = boot.pop("_per")
    tables.update(boot)
    tables["metric_tau"], mean_ci = review.metric_tau_intervals(
        tables["metric_tau"], part2["_per_example"], rs)
    tables["metric_tau_summary"] = tables["metric_tau_summary"].merge(
        mean_ci, on=["measure_a", "measure_b"], how="left")
    clock("intervals on every table; test-only tables")
    tables.update(review.real_detectors(root, items, ann, hard, soft_vecs, ann_vecs, part1,
                                        per, frame, rs))
    clock("parts 4-6: real detectors, same references, leaderboard, provenance, "
          "granularity")
    sys_root = real_systems.systems_dir(systems, root)
    if sys_root is None:
        log("no mushroom_systems folder: parts 7-10 (real system outputs) are not run")
    else:
        tables.update(real_study.run(root, sys_root, items, ann, hard, part1, per, rs, clock))
        tables["humans_and_systems"] = humans.humans_and_systems(
            tables["annotators_two_way"], tables.get("leaderboard"),
            tables["systems_vs_loo"], tables["humans_and_systems"])
        tables["annotators_rebuilt"] = rebuilt.table(items, ann, tables["annotators_two_way"])
        clock("part 9b: the annotators' LOO references rebuilt inside each resample")
    fb_root = faithbench_study.data_dir()
    if fb_root is None:
        log(f"no FaithBench folder (${faithbench_study.ENV_VAR}): part 11 is not run")
    else:
        tables.update(faithbench_study.tables(fb_root))
        clock("part 11: FaithBench's detectors under each gold rule and per type")
    sv_root = visions_study.data_dir()
    if sv_root is None:
        log(f"no SHROOM-Visions folder (${visions_study.ENV_VAR}): part 12 is not run")
    else:
        tables.update(visions_study.tables(sv_root))
        clock("part 12: SHROOM-Visions' systems under each benchmark's convention and per "
              "type")

    out.mkdir(parents=True, exist_ok=True)
    for name, df in tables.items():
        report.write_csv(df, out / f"{name}.csv")
    _markdown(out, tables)
    _manifest(out, root, items, seed, languages, sys_root, faithbench_study.data_dir(),
              visions_study.data_dir())
    if languages is None and "convention_effects" in tables:
        from . import readme

        readme_path(out).write_text(readme.render(tables), encoding="utf-8")
    if figures:
        _figures(out, tables)
    clock(f"wrote {len(list(out.iterdir()))} files to {out}")
    return {"items": items, "annotations": ann, "tables": tables,
            "frames": frames,
            "per_example": part2["_per_example"]}


class _Clock:
    def __init__(self, log, t0: float) -> None:
        self.log, self.t0 = log, t0

    def __call__(self, msg: str) -> None:
        self.log(f"[{time.perf_counter() - self.t0:6.1f} s] {msg}")


def _tables(ann, part1, recompute, part2, part3, chosen) -> dict[str, pd.DataFrame]:
    return {
        "data_handling": ann.handling,
        "silent_annotators": data.silent_annotators(ann),
        "recompute_check": recompute,
        "loo_reference": part1["loo_reference_stats"],
        "annotators_vs_hard": part1["vs_hard"],
        "annotators_vs_hard_by_annotator": part1["vs_hard_by_annotator"],
        "annotators_vs_hard_adjacent_merged": part1["vs_hard_adjacent_merged"],
        "annotators_vs_loo": part1["vs_loo"],
        "annotators_vs_loo_by_annotator": part1["vs_loo_by_annotator"],
        "annotators_pairwise": part1["pairwise"],
        "annotators_pairwise_by_annotator": part1["pairwise_by_annotator"],
        "annotator_detectors": chosen,
        "detector_scores": part2["detector_scores"],
        "detector_ranks": part2["detector_ranks"],
        "metric_tau": part2["metric_tau"],
        "metric_tau_summary": part2["metric_tau_summary"],
        "undercoverage": part3,
    }


def _markdown(out: Path, t: dict) -> None:
    from . import markdown, markdown_real

    markdown.write_all(out, t)
    markdown_real.write_all(out, t)


#: Every figure and the tables it is drawn from (their fingerprint is stored in the PNG).
FIGURES = {
    "fig1_inter_annotator": ["annotators_vs_hard", "annotators_vs_loo", "annotators_pairwise",
                             "annotators_vs_loo_by_annotator"],
    "fig2_detector_scores": ["detector_scores"],
    "fig3_metric_tau": ["metric_tau_summary"],
    "fig4_undercoverage": ["undercoverage", "detector_scores"],
    "fig5_humans_and_systems": ["annotators_two_way", "convention_scores", "systems_vs_loo"],
    "fig6_rank_agreement": ["leaderboard_tau", "granularity_tau"],
    "fig7_provenance": ["provenance", "provenance_tests"],
    "fig8_convention_table": ["convention_effects"],
}


def _figures(out: Path, t: dict) -> None:
    from . import figtitles, figures, figures_real, pngmeta

    ti = figtitles.titles(t, min_items=MIN_ITEMS, prov_min_items=PROVENANCE_MIN_ITEMS)

    draw = {
        "fig1_inter_annotator": lambda p: figures.inter_annotator(
            t["annotators_vs_hard"], t["annotators_vs_loo"], t["annotators_pairwise"],
            t["annotators_vs_loo_by_annotator"], p, min_items=MIN_ITEMS,
            titles=ti["fig1_inter_annotator"]),
        "fig2_detector_scores": lambda p: figures_real.detector_scores(
            t["detector_scores"], p, titles=ti["fig2_detector_scores"]),
        "fig3_metric_tau": lambda p: figures.metric_tau(t["metric_tau_summary"], p,
                                                        titles=ti["fig3_metric_tau"]),
        "fig4_undercoverage": lambda p: figures.undercoverage(
            t["undercoverage"], t["detector_scores"], p, titles=ti["fig4_undercoverage"]),
        "fig5_humans_and_systems": lambda p: figures_real.humans_and_systems(
            t["annotators_two_way"], t["convention_scores"], t["systems_vs_loo"], p,
            titles=ti["fig5_humans_and_systems"]),
        "fig6_rank_agreement": lambda p: figures.rank_agreement(
            t["leaderboard_tau"], t["granularity_tau"], p, titles=ti["fig6_rank_agreement"]),
        "fig7_provenance": lambda p: figures_real.provenance(
            t["provenance"], t["provenance_tests"], p, min_items=PROVENANCE_MIN_ITEMS,
            titles=ti["fig7_provenance"]),
        "fig8_convention_table": lambda p: figures_real.convention_table(
            t["convention_effects"], p, titles=ti["fig8_convention_table"]),
    }
    for name, inputs in FIGURES.items():
        if not all(k in t for k in inputs):
            continue
        path = out / f"{name}.png"
        draw[name](path)
        pngmeta.add_text(path, pngmeta.KEY, pngmeta.fingerprint(t, inputs))
        pngmeta.add_text(path, figtitles.KEY, figtitles.stored(ti[name]))


def _manifest(out: Path, root: Path, items: pd.DataFrame, seed: int, languages,
              sys_root: Path | None, fb_root: Path | None = None,
              sv_root: Path | None = None) -> None:
    files = []
    for name in sorted(items["file"].unique()):
        path = next(root.rglob(name))
        files.append({"file": str(path.relative_to(root)),
                      "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                      "items": int((items["file"] == name).sum())})
    meta = mycelium.evaluate([[]], [[]], profile=scoring.PROFILE)["meta"]
    # The study reads the files' numbers by the profile's rule (read_mushroom): say so.
    rule = mycelium.get_profile(scoring.PROFILE).float_parse
    manifest = {
        "command": "python -m validation.run"
                   + (f" --languages {','.join(languages)}" if languages else "")
                   + (f" --seed {seed}" if seed else ""),
        "mycelium_version": mycelium.__version__,
        "signature": signature_with(meta["signature"], float_parse=rule),
        "seed": seed,
        "bootstrap": {"resamples": RESAMPLES, "central_table_resamples":
                      ranking.CENTRAL_RESAMPLES, "seed": SEED, "level": LEVEL,
                      "unit": "item (Poisson weights keyed by item id)"},
        "annotator_detectors": {"max_per_language": MAX_ANNOTATORS,
                                "min_items": MIN_ITEMS},
        "two_way_bootstrap": {"annotator_seed": twoway.ANNOTATOR_SEED,
                              "annotator_weights": "multinomial, per language, generator "
                                                   "seeded with (seed, crc32(language))",
                              "rebuilt_references_resamples": rebuilt.RESAMPLES},
        "language_bootstrap": {"resamples": ranking.LANGUAGE_RESAMPLES,
                               "seed": ranking.LANGUAGE_SEED},
        "permutations": {"count": provenance_tests.PERMUTATIONS,
                         "seed": provenance_tests.PERMUTATION_SEED,
                         "generator": "(seed, crc32 of series, split, language)"},
        "token_classifier": {"l2": token_baselines.L2, "trained_on": "every val v2 item"},
        "languages": sorted(items["lang"].unique()),
        "items": int(len(items)),
        "files": files,
        "systems": _systems_manifest(sys_root),
        "faithbench": _faithbench_manifest(fb_root),
        "shroom_visions": _visions_manifest(sv_root),
        "versions": {"numpy": np.__version__, "pandas": pd.__version__,
                     "pyarrow": pa.__version__},
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n",
                                       encoding="utf-8")


def _faithbench_manifest(fb_root: Path | None) -> dict | None:
    """FaithBench's files by hash, and the signature of every gold rule of part 11."""
    if fb_root is None:
        return None
    from dataclasses import replace

    from mycelium.protocols import faithbench as fb

    files = sorted(p for p in fb_root.rglob("*") if p.is_file() and p.suffix in
                   (".json", ".csv", ".md"))
    return {"files": {str(p.relative_to(fb_root)): hashlib.sha256(p.read_bytes()).hexdigest()
                      for p in files},
            "rules": {name: replace(fb.GoldRule(), **fields).signature().rsplit("|", 1)[0]
                      for name, (_, _, fields, _) in faithbench_study.RULES.items()}}


def _visions_manifest(sv_root: Path | None) -> dict | None:
    """SHROOM-Visions' gold and prediction files by hash (part 12)."""
    if sv_root is None:
        return None
    files = sorted(sv_root.glob("gold/*.jsonl")) + sorted(sv_root.glob("teams/*/*/*.jsonl"))
    return {"files": {str(p.relative_to(sv_root)): hashlib.sha256(p.read_bytes()).hexdigest()
                      for p in files},
            "oracles": list(visions_study.ORACLES),
            "min_type_items": visions_study.MIN_TYPE_ITEMS}


def _systems_manifest(sys_root: Path | None) -> dict | None:
    """The real systems folder's own lists, by hash (the files' hashes are in them)."""
    if sys_root is None:
        return None
    lists = ("SOURCE.md", "MANIFEST.csv", "variants/VARIANTS.csv", "OFFICIAL.csv")
    # more/ (other teams' files, with lists of their own) is not part of the study's systems.
    files = [p for p in sys_root.rglob("*.jsonl") if p.relative_to(sys_root).parts[0] != "more"]
    return {"files": len(files),
            "lists": {name: hashlib.sha256((sys_root / name).read_bytes()).hexdigest()
                      for name in lists}}


if __name__ == "__main__":
    sys.exit(main())
