"""Real Mu-SHROOM system outputs as detectors: every submission file of the
``mushroom_systems`` folder (leaderboard rows and variants), with its team, language and
role, read under both float-parsing conventions and aligned with the study's items.

The folder's provenance is its own ``SOURCE.md``; ``MANIFEST.csv`` lists the files that
reproduce a published leaderboard row (``leaderboard_rows``: ``IoU``, ``Cor`` or
``Cor+IoU``), ``variants/VARIANTS.csv`` the other full submissions of the same teams, and
``OFFICIAL.csv`` what the official scorer prints for every file.

Study decisions (each counted in ``systems.csv``):

- ``[-1, -1]`` spans (9 MSA variant files; the soft ones have no ``prob``) are dropped:
  the official scorer gives them no character (``range(-1, -1)`` is empty, so their
  missing ``prob`` is never read) and mycelium rejects them as spans.
- Float parsing (`read_records`, `mycelium.read_mushroom`'s ``float_parse``):
  ``"pandas-fast"`` reads numbers as the official scorer's ``pandas.read_json`` does,
  ``"exact"`` as Python's ``json``. Only soft-label probabilities (so only Cor) can
  differ; the reference and the prediction are read by the same rule.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

import mycelium
from mycelium.io.float_parse import parse_float_hook
from mycelium.metrics.soft_spearman import soft_vector

from .data import DataError
from .flat import Flat

ENV_VAR = "MYCELIUM_MUSHROOM_SYSTEMS_DIR"
FOLDER = "mushroom_systems"
FLOAT_PARSE = ("pandas-fast", "exact")
#: The official scorer's reading (the leaderboard's numbers).
OFFICIAL_PARSE = "pandas-fast"


def systems_dir(arg: str | None, data_root: Path) -> Path | None:
    """``--systems``, else ``$MYCELIUM_MUSHROOM_SYSTEMS_DIR``, else ``mushroom_systems``
    beside or below the Mu-SHROOM data folder; None when there is none."""
    value = arg or os.environ.get(ENV_VAR)
    if value:
        path = Path(value)
        if not (path / "MANIFEST.csv").is_file():
            raise DataError(f"Expected the real systems' MANIFEST.csv in {str(path)!r} "
                            f"(from {'--systems' if arg else ENV_VAR}), got none; fix by "
                            "pointing it at the mushroom_systems folder.")
        return path
    for base in (data_root.parent, data_root):
        if (base / FOLDER / "MANIFEST.csv").is_file():
            return base / FOLDER
    return None


def read_records(path: Path, float_parse: str) -> list[dict]:
    """The ``id``, ``hard_labels`` and ``soft_labels`` of every record of one Mu-SHROOM
    JSONL file, in file order, floats read by ``float_parse``.

    ``"pandas-fast"`` is the official scorer's reading (``pd.read_json``, whose parser
    reads e.g. 0.8812335261248792 and 0.881233526124879 as one double), ``"exact"`` the
    correctly rounded one, both by `mycelium.read_mushroom` (``float_parse=``). A file the
    reader rejects — the 9 MSA variants holding ``[-1, -1]`` spans — is read line by line
    with the same rule (`mycelium.io.float_parse.parse_float_hook`) so that the study can
    drop those spans itself.
    """
    if float_parse not in FLOAT_PARSE:
        raise ValueError(f"Expected float_parse one of {', '.join(FLOAT_PARSE)}, got "
                         f"{float_parse!r}; fix by passing one of them.")
    try:
        frame = mycelium.read_mushroom(path, float_parse=float_parse)
    except mycelium.SpanValidationError:
        hook = parse_float_hook(float_parse)
        return [json.loads(line, parse_float=hook)
                for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    # A record without the field is null in the frame: None here, as a missing key is.
    return [{"id": i, "hard_labels": None if h is None or h is pd.NA
             else [[x["start"], x["end"]] for x in h],
             "soft_labels": None if soft is None or soft is pd.NA else list(soft)}
            for i, h, soft in zip(frame["id"].tolist(), frame["hard_labels"].tolist(),
                                  frame["soft_labels"].tolist())]


@dataclass(frozen=True)
class Systems:
    """Every system file: one row per file in ``table``; one row per (file, item) in
    ``rows`` (``system`` index into ``table``, ``item`` index into the study's items),
    their hard spans ``hard`` (a `Flat` over those rows) and soft spans per float
    convention (``soft[float_parse][row]`` is a list of ``(start, end, prob)``)."""

    table: pd.DataFrame
    rows: pd.DataFrame
    hard: Flat
    soft: dict


def _catalogue(root: Path) -> pd.DataFrame:
    """File, team, language, role and the official scorer's numbers of every file."""
    man = pd.read_csv(root / "MANIFEST.csv", dtype=str, keep_default_na=False)
    var = pd.read_csv(root / "variants" / "VARIANTS.csv", dtype=str, keep_default_na=False)
    off = pd.read_csv(root / "OFFICIAL.csv", dtype=str, keep_default_na=False)
    a = man[["file", "team", "lang"]].assign(role=man["leaderboard_rows"],
                                            cor_json_manifest=man["cor_mine_python_json"])
    b = var[["file", "team", "lang"]].assign(role="variant", cor_json_manifest="")
    cat = pd.concat([a, b], ignore_index=True)
    cat = cat.merge(off[["file", "status", "IoU", "Cor"]].rename(
        columns={"IoU": "official_iou", "Cor": "official_cor", "status": "official_status"}),
        on="file", how="left")
    missing = cat["official_status"].isna()
    if missing.any():
        raise DataError(f"Expected every file of MANIFEST.csv and VARIANTS.csv in "
                        f"OFFICIAL.csv, got none for {cat.loc[missing, 'file'].tolist()[:3]}; "
                        "fix by restoring the folder's OFFICIAL.csv.")
    cat["lang"] = cat["lang"].str.upper()
    cat["system"] = [_name(f, t) for f, t in zip(cat["file"], cat["team"])]
    for col in ("official_iou", "official_cor"):
        cat[col] = pd.to_numeric(cat[col], errors="coerce")
    cat["leaderboard_iou_row"] = cat["role"].str.contains("IoU")
    cat["leaderboard_cor_row"] = cat["role"].str.contains("Cor")
    return cat.sort_values(["lang", "team", "system"], kind="stable").reset_index(drop=True)


def _name(file: str, team: str) -> str:
    """``NCL-UoR en`` for a leaderboard file, ``UZH en.cor_best``, ``MSA en.v01``."""
    stem = Path(file).name.removesuffix(".jsonl")
    if file.startswith("variants/"):
        lang, _, k = stem.partition(".")
        return f"{team} {lang}.v{k}"
    return f"{team} {stem}"


def load(root: Path, items: pd.DataFrame) -> Systems:
    """Every system file of the items' languages, aligned with ``items`` by id."""
    cat = _catalogue(root)
    cat = cat[cat["lang"].isin(set(items["lang"]))].reset_index(drop=True)
    index = {i: k for k, i in enumerate(items["id"].tolist())}
    texts = items["text_len"].to_numpy()
    rows: list[tuple[int, int]] = []
    r_row: list[int] = []
    r_s: list[int] = []
    r_e: list[int] = []
    soft: dict[str, list] = {fp: [] for fp in FLOAT_PARSE}
    dropped_hard, dropped_soft = [], []
    for k, rec in enumerate(cat.itertuples(index=False)):
        parsed = {fp: read_records(root / rec.file, fp) for fp in FLOAT_PARSE}
        ids = [str(r["id"]) for r in parsed["exact"]]
        _check_ids(ids, items, rec)
        n_hard = n_soft = 0
        for fp in FLOAT_PARSE:
            if [str(r["id"]) for r in parsed[fp]] != ids:
                raise DataError(f"Expected both readers to give the records of {rec.file} "
                                "in file order, got another order; fix the reader.")
            for r in parsed[fp]:
                soft_spans, d = _soft(r.get("soft_labels"))
                soft[fp].append(soft_spans)
                n_soft += d if fp == "exact" else 0
        for r, rid in zip(parsed["exact"], ids):
            item = index[rid]
            spans, d = _hard(r.get("hard_labels"), rec.file, rid, int(texts[item]))
            n_hard += d
            for s, e in spans:
                r_row.append(len(rows))
                r_s.append(s)
                r_e.append(e)
            rows.append((k, item))
        dropped_hard.append(n_hard)
        dropped_soft.append(n_soft)
    n_test = items[items["split"] == "test"].groupby("lang").size()
    table = cat.assign(items=cat["lang"].map(n_test).astype(int),
                       unlocated_hard_dropped=dropped_hard,
                       unlocated_soft_dropped=dropped_soft)
    r = pd.DataFrame(rows, columns=["system", "item"])
    return Systems(table, r, Flat.build(len(r), r_row, r_s, r_e), soft)


def _check_ids(ids: list[str], items: pd.DataFrame, rec) -> None:
    test = items[(items["split"] == "test") & (items["lang"] == rec.lang)]["id"]
    if sorted(ids) != sorted(test.tolist()) or len(set(ids)) != len(ids):
        raise DataError(f"Expected {rec.file} to hold exactly the {len(test)} test ids of "
                        f"{rec.lang}, got {len(ids)} records ({len(set(ids) - set(test))} "
                        "unknown); fix by restoring the file from the folder's sources.")


def _is_unlocated(span) -> bool:
    start, end = (span["start"], span["end"]) if isinstance(span, dict) else span
    return start == -1 and end == -1


def _hard(spans, file: str, rid, text_len: int) -> tuple[list[tuple[int, int]], int]:
    """Hard spans as given, ``[-1, -1]`` dropped (and counted); anything else invalid
    is an error."""
    out, dropped = [], 0
    for span in spans or []:
        if _is_unlocated(span):
            dropped += 1
            continue
        s, e = int(span[0]), int(span[1])
        if not 0 <= s <= e <= text_len:
            raise DataError(f"Expected hard spans within 0 <= start <= end <= "
                            f"{text_len}, got {[s, e]}, at {file} id {rid}; the study has "
                            "no rule for it.")
        out.append((s, e))
    return out, dropped


def _soft(spans) -> tuple[list[tuple[int, int, float]], int]:
    """Soft spans in file order (the order matters for Cor), ``[-1, -1]`` dropped."""
    out, dropped = [], 0
    for span in spans or []:
        if _is_unlocated(span):
            dropped += 1
            continue
        out.append((int(span["start"]), int(span["end"]), float(span["prob"])))
    return out, dropped


def soft_vectors(spans_per_row: list, lengths: np.ndarray) -> list[np.ndarray]:
    """Official Cor vectors (`mycelium.metrics.soft_spearman.soft_vector`: zeros
    overwritten span by span in list order)."""
    return [soft_vector([{"start": s, "end": e, "prob": p} for s, e, p in spans], int(n),
                        "soft_predictions", k)
            for k, (spans, n) in enumerate(zip(spans_per_row, lengths.tolist()))]


def reference_soft(data_root: Path, items: pd.DataFrame, float_parse: str) -> list:
    """The test items' published soft labels read under ``float_parse`` (None for the
    other items), as ``(start, end, prob)`` lists in file order."""
    out: list = [None] * len(items)
    index = {i: k for k, i in enumerate(items["id"].tolist())}
    for name in sorted(items.loc[items["split"] == "test", "file"].unique()):
        path = next(data_root.rglob(name))
        for r in read_records(path, float_parse):
            k = index.get(str(r["id"]))
            if k is not None:
                out[k] = _soft(r["soft_labels"])[0]
    return out
