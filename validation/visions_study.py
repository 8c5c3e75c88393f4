"""SHROOM-Visions: one team's real submissions under their own convention, Mu-SHROOM's
and FaithBench's, at each granularity, and per type of hallucination.

The folder (``$MYCELIUM_SHROOM_VISIONS_DIR``) holds a labelled held-out slice of the
organisers' train split (``gold/``, 4 languages, typed spans with the share of annotators
``prob``) and the prediction files of the submissions one team (vroom-vroom) kept on its
internal leaderboard (``teams/``). Each file is scored by the kit's rules
(`mycelium.protocols.shroom_visions.score_files`); a file the kit refuses, or one that
does not cover every gold item, is left out and listed (``visions_systems``), and so is
the team's oracle run (`ORACLES`). These are
one team's development systems, not a field of teams, and the gold is not the task's
test set: none of the published leaderboard rows can be reproduced from it.

Conventions (`CONVENTIONS`), per item unless micro:

- SHROOM-Visions' own (the kit's): IoU over every span (``sv_iou``, the ranking every
  change starts from), Cor and Cor lbl (Cor per label, averaged over the labels of
  either side: the typed convention);
- Mu-SHROOM's: IoU of hard spans (the characters some label marks with ``prob > 0.5``;
  a prediction's spans above 0.5), type ignored, under the ``mu_shroom`` profile, in
  characters, words and sentences, micro-averaged, and response-level F1 (pooled);
- FaithBench's: balanced accuracy of the response-level flag (an item is hallucinated
  when it holds a hard span), pooled over items.

Per type (`LABELS`): each system's IoU restricted to one label (the kit's per-label
IoU) on the items whose gold holds that label, and Kendall's tau between two labels'
rankings. Every interval and every noise floor comes from
`validation.ranking.CENTRAL_RESAMPLES` resamples of the library's Poisson bootstrap keyed
by item id (the same weights for every system, convention and label); each change of
winner is set against `validation.ranking.noise_floor` and Holm-adjusted across every
change of winner of this part, conventions and types together
(`validation.ranking.floor_table`).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

import mycelium
from mycelium.io.shroom_visions import VISIONS_LABELS, VisionsInputError, read_shroom_visions
from mycelium.protocols.shroom_visions import score_files
from mycelium.stats.bootstrap import percentile_interval

from . import scoring
from .conventions import response_ba, response_f1
from .flat import Flat, merge
from .ranking import change_stats, floor_table, item_weights, noise_floor, ranks
from .uncertainty import LEVEL, tau_b

ENV_VAR = "MYCELIUM_SHROOM_VISIONS_DIR"
LANGS = ("en", "fr", "it", "zh")
LABELS = tuple(VISIONS_LABELS)
OFFICIAL = "sv_iou"
#: Submissions that are not detectors: the team's own oracle run (its metadata's name is
#: "Perfect binary classifier": it is told which responses hold a hallucination).
ORACLES = ("20260722-110448_perfect-binary-classifier",)
#: A type enters the per-type rankings of a language when this many gold items hold it.
MIN_TYPE_ITEMS = 20
#: name: (benchmark whose convention it is, label).
CONVENTIONS = {
    "sv_iou": ("SHROOM-Visions", "IoU, every span (official)"),
    "sv_cor": ("SHROOM-Visions", "Cor"),
    "sv_cor_lbl": ("SHROOM-Visions", "Cor lbl (per label)"),
    "ms_iou": ("Mu-SHROOM", "hard-span IoU in characters"),
    "ms_iou_word": ("Mu-SHROOM", "hard-span IoU in words"),
    "ms_iou_sentence": ("Mu-SHROOM", "hard-span IoU in sentences"),
    "ms_iou_micro": ("Mu-SHROOM", "hard-span IoU, micro"),
    "ms_response_f1": ("Mu-SHROOM", "response F1"),
    "fb_ba": ("FaithBench", "response balanced accuracy"),
}
#: (family, from, to): every change of the table.
CHANGES = (
    ("metric", "sv_iou", "sv_cor"),
    ("typology", "sv_cor", "sv_cor_lbl"),
    ("convention of Mu-SHROOM", "sv_iou", "ms_iou"),
    ("average", "ms_iou", "ms_iou_micro"),
    ("granularity", "ms_iou", "ms_iou_word"),
    ("granularity", "ms_iou", "ms_iou_sentence"),
    ("granularity", "ms_iou", "ms_response_f1"),
    ("convention of FaithBench", "sv_iou", "fb_ba"),
)
_STATS = ("tau", "winner_changes", "max_rank_move", "median_abs_delta")


def data_dir(path: str | None = None) -> Path | None:
    """The SHROOM-Visions folder: ``path``, else ``$MYCELIUM_SHROOM_VISIONS_DIR``, else
    None.

    Examples
    --------
    >>> data_dir("/data/sv").name
    'sv'
    """
    value = path or os.environ.get(ENV_VAR)
    return Path(value) if value else None


def hard_spans(labels, threshold: float = 0.5) -> list[tuple[int, int]]:
    """The spans of ``labels`` (dicts with ``start``, ``end``, ``prob``) whose ``prob``
    exceeds ``threshold``, merged where they overlap or touch, type ignored.

    Examples
    --------
    >>> hard_spans([{"start": 0, "end": 3, "prob": 0.67, "label": "OCR"},
    ...             {"start": 2, "end": 5, "prob": 1.0, "label": "invention"},
    ...             {"start": 8, "end": 9, "prob": 0.33, "label": "other"}])
    [(0, 5)]
    """
    kept = sorted((int(s["start"]), int(s["end"])) for s in labels
                  if float(s["prob"]) > threshold and int(s["end"]) > int(s["start"]))
    out: list[tuple[int, int]] = []
    for a, b in kept:
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _flat(spans: list[list[tuple[int, int]]]) -> Flat:
    row = [i for i, s in enumerate(spans) for _ in s]
    return merge(Flat.build(len(spans), np.array(row, dtype=np.int64),
                            np.array([a for s in spans for a, _ in s], dtype=np.int64),
                            np.array([b for s in spans for _, b in s], dtype=np.int64)))


def load(folder: Path) -> tuple[pd.DataFrame, dict]:
    """Every prediction file with its status (``visions_systems``), and per language the
    gold frame and the scored systems: ``{lang: (gold, names, results, preds)}``."""
    status, per_lang = [], {}
    teams = sorted(p for p in (folder / "teams").glob("*/*") if p.is_dir())
    for lang in LANGS:
        gold_path = folder / "gold" / f"shroom-vision.test.{lang}.labeled.jsonl"
        gold = read_shroom_visions(gold_path)
        ids = gold["id"].tolist()
        names, results, preds = [], [], []
        for sub in teams:
            path = sub / f"{lang}.jsonl"
            if not path.exists():
                continue
            row = {"lang": lang.upper(), "team": sub.parent.name, "system": sub.name,
                   "gold_items": len(ids)}
            if sub.name in ORACLES:
                status.append(row | {"items": np.nan, "status": "oracle (not a detector)"})
                continue
            try:
                res = score_files(gold_path, path)
            except VisionsInputError as exc:
                status.append(row | {"items": np.nan, "status": f"refused ({exc.rule})"})
                continue
            if sorted(map(str, res.ids)) != sorted(ids):
                status.append(row | {"items": len(res.ids),
                                     "status": "not every gold item"})
                continue
            status.append(row | {"items": len(res.ids), "status": "scored",
                                 "kit_iou": res.iou_mean, "kit_cor": res.cor_mean,
                                 "kit_cor_lbl": res.cor_lbl_mean})
            pred = read_shroom_visions(path).set_index("id").loc[ids]
            names.append(sub.name)
            results.append(res)
            preds.append(pred["labels"].tolist())
        per_lang[lang.upper()] = (gold, names, results, preds)
    return pd.DataFrame(status), per_lang


def _weighted_macro(w: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean over items of ``m`` (items x systems, NaN left out), and its resamples."""
    ok = ~np.isnan(m)
    v = np.where(ok, m, 0.0)
    k = ok.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return v.sum(axis=0) / k.sum(axis=0), (w @ v) / (w @ k)


def _both(w: np.ndarray, mats: dict[str, np.ndarray], finish) -> tuple[np.ndarray, np.ndarray]:
    full = {k: m.sum(axis=0)[None, :] for k, m in mats.items()}
    star = {k: w @ m for k, m in mats.items()}
    return finish(full)[0], finish(star)


def _kit_matrix(results: list, ids: list[str], attr: str) -> np.ndarray:
    cols = []
    for res in results:
        pos = {str(x): k for k, x in enumerate(res.ids)}
        order = np.array([pos[i] for i in ids])
        cols.append(np.asarray(getattr(res, attr), dtype=np.float64)[order])
    return np.column_stack(cols)


def convention_values(gold: pd.DataFrame, results: list, preds: list, w: np.ndarray
                      ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per convention: full-data (D,) and resampled (R, D) values of one language's
    systems."""
    ids = gold["id"].tolist()
    n, d = len(ids), len(results)
    out = {name: _weighted_macro(w, _kit_matrix(results, ids, attr))
           for name, attr in (("sv_iou", "iou"), ("sv_cor", "cor"), ("sv_cor_lbl", "cor_lbl"))}
    ref = _flat([hard_spans(x) for x in gold["labels"]])
    text = gold["response"].tolist()
    macro = {"ms_iou": {}, "ms_iou_word": {"granularity": "word"},
             "ms_iou_sentence": {"granularity": "sentence"}}
    mats = {k: np.zeros((n, d)) for k in macro}
    inter, union = np.zeros((n, d)), np.zeros((n, d))
    tp, fp, fn, tn = (np.zeros((n, d)) for _ in range(4))
    gold_flag = (ref.counts > 0).astype(np.float64)
    for j, labels in enumerate(preds):
        pred = _flat([hard_spans(x) for x in labels])
        df = scoring.frame(ref, pred, text, np.zeros(n))
        for name, opts in macro.items():
            mats[name][:, j] = df.mycelium.score("ref", "pred", text="text",
                                                 profile=scoring.PROFILE, metrics=["iou"],
                                                 **opts)["iou_score"].to_numpy()
        st = mycelium.statistics(df["ref"], df["pred"], text=text, metrics=["iou"])["iou"]
        inter[:, j], union[:, j] = st["inter"], st["union"]
        flag = (pred.counts > 0).astype(np.float64)
        tp[:, j], fp[:, j] = gold_flag * flag, (1 - gold_flag) * flag
        fn[:, j], tn[:, j] = gold_flag * (1 - flag), (1 - gold_flag) * (1 - flag)
    for name in macro:
        out[name] = _weighted_macro(w, mats[name])
    zd = mycelium.get_profile(scoring.PROFILE).zero_division

    def micro_iou(s):
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(s["u"] > 0, s["i"] / s["u"], zd)

    out["ms_iou_micro"] = _both(w, {"i": inter, "u": union}, micro_iou)
    counts = {"response_level__tp": tp, "response_level__fp": fp,
              "response_level__fn": fn, "response_level__tn": tn}
    out["ms_response_f1"] = _both(w, counts, lambda s: response_f1(s, zd))
    out["fb_ba"] = _both(w, counts, response_ba)
    return out


def type_values(gold: pd.DataFrame, results: list, w: np.ndarray
                ) -> dict[str, tuple[tuple[np.ndarray, np.ndarray], int]]:
    """Per label held by at least `MIN_TYPE_ITEMS` gold items: each system's mean IoU
    restricted to the label over those items (full and resampled), and their count."""
    ids = gold["id"].tolist()
    out = {}
    for label in LABELS:
        cols, held = [], None
        for res in results:
            code = list(res.label_names).index(label) if label in res.label_names else -1
            s = res.scores
            at = (s.pair_label == code) & (s.pair_ref_spans > 0)
            item_ids = [str(res.ids[i]) for i in s.pair_item[at]]
            values = dict(zip(item_ids, s.pair_iou[at]))
            held = [i for i in ids if i in values] if held is None else held
            cols.append(np.array([values.get(i, np.nan) for i in held], dtype=np.float64))
        if held is None or len(held) < MIN_TYPE_ITEMS:
            continue
        sel = np.array([ids.index(i) for i in held])
        out[label] = (_weighted_macro(w[:, sel], np.column_stack(cols)), len(held))
    return out


def _pair_row(ea, sa, eb, sb, names: list[str]) -> tuple[dict, dict | None]:
    est = {k: float(v[0]) for k, v in change_stats(ea, eb).items()}
    star = change_stats(sa, sb)
    a, b = int(np.argmax(ea)), int(np.argmax(eb))
    row = {"n_systems": len(names), "winner_from": names[a], "winner_to": names[b]}
    for k in _STATS:
        row[k] = est[k]
        if k == "winner_changes":
            row["winner_change_share"] = float(np.nanmean(star[k]))
        else:
            row[f"{k}_low"], row[f"{k}_high"] = percentile_interval(star[k], LEVEL, est[k])
    floor = None
    if est["winner_changes"] == 1.0:
        floor = {"winner_from": names[a], "winner_to": names[b],
                 "gap_from": float(ea[a] - ea[b]), "gap_to": float(eb[b] - eb[a])} \
            | noise_floor(sa, sb, a, b)
    return row, floor


def _mean_rows(keyed: dict, floor: pd.DataFrame, key_cols: tuple[str, ...]) -> list[dict]:
    """Languages as the unit: mean tau (count of winner changes) over languages with an
    item-bootstrap interval, and the count of changes beyond the noise floor."""
    rows = []
    for key, parts in keyed.items():
        row = dict(zip(key_cols, key)) | {"lang": "MEAN", "languages": len(parts)}
        for k in _STATS:
            est = np.array([p[0][k] for p in parts])
            star = np.column_stack([p[1][k] for p in parts])
            agg = np.sum if k == "winner_changes" else np.mean
            row[k] = float(agg(est))
            row[f"{k}_low"], row[f"{k}_high"] = percentile_interval(
                agg(star, axis=1), LEVEL, row[k])
        sel = np.ones(len(floor), bool)
        for c, v in zip(key_cols, key):
            sel &= (floor[c] == v).to_numpy() if len(floor) else sel
        row["winner_changes_significant"] = int(floor.loc[sel, "significant"].sum()) \
            if len(floor) else 0
        rows.append(row)
    return rows


def tables(folder: Path) -> dict[str, pd.DataFrame]:
    """``visions_systems`` (every file and its status), ``visions_scores`` (every scored
    system under every convention and per type, with intervals), ``visions_effects``
    (each change per language and as a mean), ``visions_types`` (tau between the
    per-type rankings) and ``visions_noise_floor`` (each change of winner against item
    resampling alone)."""
    status, per_lang = load(folder)
    scores, effects, types_rows, floor = [], [], [], []
    keyed_eff: dict = {}
    keyed_typ: dict = {}
    for lang, (gold, names, results, preds) in per_lang.items():
        w = item_weights(gold["id"].tolist())
        values = convention_values(gold, results, preds, w)
        by_type = type_values(gold, results, w)
        for name, (est, star) in values.items():
            scores += _score_rows(lang, name, CONVENTIONS[name][1], names, est, star, len(gold))
        for label, ((est, star), n) in by_type.items():
            scores += _score_rows(lang, f"type:{label}", f"IoU on {label}", names, est,
                                  star, n)
        for family, src, dst in CHANGES:
            (ea, sa), (eb, sb) = values[src], values[dst]
            row, fl = _pair_row(ea, sa, eb, sb, names)
            base = {"lang": lang, "family": family, "from": src, "to": dst,
                    "change": f"{CONVENTIONS[src][1]} -> {CONVENTIONS[dst][1]}",
                    "benchmark_to": CONVENTIONS[dst][0]}
            effects.append(base | row)
            keyed_eff.setdefault((family, src, dst), []).append(_stars(ea, sa, eb, sb))
            if fl is not None:
                floor.append({"lang": lang, "family": family, "from": src, "to": dst,
                              "detectors": "shroom_visions"} | fl)
        labels = list(by_type)
        for i, a in enumerate(labels):
            for b in labels[i + 1:]:
                (ea, sa), na = by_type[a]
                (eb, sb), nb = by_type[b]
                row, fl = _pair_row(ea, sa, eb, sb, names)
                types_rows.append({"lang": lang, "from": a, "to": b, "items_from": na,
                                   "items_to": nb} | row)
                keyed_typ.setdefault((a, b), []).append(_stars(ea, sa, eb, sb))
                if fl is not None:
                    floor.append({"lang": lang, "family": "type", "from": a, "to": b,
                                  "detectors": "shroom_visions"} | fl)
    noise = floor_table(floor)
    conv_floor = noise[noise["family"] != "type"] if len(noise) else noise
    type_floor = noise[noise["family"] == "type"] if len(noise) else noise
    effects += _mean_rows({k: v for k, v in keyed_eff.items()}, conv_floor,
                          ("family", "from", "to"))
    eff = pd.DataFrame(effects)
    eff["change"] = eff["change"].fillna(eff["from"].map(lambda s: CONVENTIONS[s][1]) + " -> "
                                         + eff["to"].map(lambda s: CONVENTIONS[s][1]))
    eff["benchmark_to"] = eff["to"].map(lambda s: CONVENTIONS[s][0])
    types_rows += _mean_rows(keyed_typ, type_floor, ("from", "to"))
    return {"visions_systems": status, "visions_scores": pd.DataFrame(scores),
            "visions_effects": eff, "visions_types": pd.DataFrame(types_rows),
            "visions_noise_floor": noise}


def _stars(ea, sa, eb, sb) -> tuple[dict, dict]:
    return ({k: float(v[0]) for k, v in change_stats(ea, eb).items()}, change_stats(sa, sb))


def _score_rows(lang: str, name: str, label: str, names: list[str], est: np.ndarray,
                star: np.ndarray, items: int) -> list[dict]:
    rk = ranks(est)[0]
    rows = []
    for k, d in enumerate(names):
        lo, hi = percentile_interval(star[:, k], LEVEL, float(est[k]))
        rows.append({"lang": lang, "convention": name, "label": label, "items": items,
                     "system": d, "value": float(est[k]), "low": lo, "high": hi,
                     "rank": float(rk[k])})
    return rows


def tau_between(a: np.ndarray, b: np.ndarray) -> float:
    """Kendall's tau-b between two systems' score vectors (for tests and claims).

    Examples
    --------
    >>> tau_between(np.array([0.1, 0.2, 0.3]), np.array([0.3, 0.2, 0.1]))
    -1.0
    """
    return float(tau_b(np.asarray(a)[None, :], np.asarray(b)[None, :])[0])
