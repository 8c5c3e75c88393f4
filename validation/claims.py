"""Every number of ``validation/README.md``: one function of the result tables per
placeholder of ``README.in.md`` (see `validation.readme`). Intervals print as
``value [low, high]``, negative numbers with a minus sign (U+2212)."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from . import check, ranking, twoway, uncertainty
from .markdown_real import mean_view
from .provenance_tests import PERMUTATIONS, PERMUTATION_SEED
from .report import md_table

Tables = dict


def num(x: float, digits: int = 3) -> str:
    s = f"{x:.{digits}f}"
    return s.replace("-", "\u2212") if s.startswith("-") else s


def ci(v, lo, hi, digits: int = 3) -> str:
    return f"{num(v, digits)} [{num(lo, digits)}, {num(hi, digits)}]"


def pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def one(df: pd.DataFrame, **where) -> pd.Series:
    sel = np.ones(len(df), dtype=bool)
    for k, v in where.items():
        sel &= (df[k] == v).to_numpy()
    if sel.sum() != 1:
        raise ValueError(f"Expected one row of the table with {where}, got {int(sel.sum())}; "
                         "fix the claim in validation/claims.py.")
    return df[sel].iloc[0]


def names(langs) -> str:
    langs = list(langs)
    if not langs:
        return "no language"
    return ", ".join(langs[:-1]) + (" and " if len(langs) > 1 else "") + langs[-1]


# --- the central table ------------------------------------------------------------------

def _mean(t: Tables, to: str, dset: str = "systems") -> pd.Series:
    e = t["convention_effects"]
    return one(e, lang="MEAN", to=to, detectors=dset)


def _tau(to: str) -> Callable[[Tables], str]:
    def f(t):
        r = _mean(t, to)
        return ci(r["tau"], r["tau_lang_low"], r["tau_lang_high"], 2)
    return f


def _win(to: str) -> Callable[[Tables], str]:
    return lambda t: str(int(_mean(t, to)["winner_changes"]))


def _win_sig(to: str) -> Callable[[Tables], str]:
    return lambda t: str(int(_mean(t, to)["winner_changes_significant"]))


def _floor(t: Tables) -> pd.DataFrame:
    f = t["winner_noise_floor"]
    return f[f["detectors"] == "systems"]


def _floor_cleared(t: Tables) -> str:
    f = _floor(t)
    f = f[f["significant"]]
    return "; ".join(f"{r.lang}, {ranking.CONVENTIONS[r.to].label}" for r in f.itertuples()) \
        or "none"


def _direction(values, below: str = "below", above: str = "above") -> str:
    """The word a set of signed differences supports (all negative, all positive)."""
    v = np.asarray(values, dtype=np.float64)
    if (v < 0).all():
        return below
    if (v > 0).all():
        return above
    return f"on both sides of (neither {below} nor {above})"


def _loo_direction(t: Tables) -> str:
    h = t["humans_vs_systems"]
    m = h[(h["lang"] == "MEAN") & h["comparison"].isin(
        ["MSA (IoU row)", "NCL-UoR (IoU row)", "UZH (IoU row)"])]
    return _direction(m["difference"])


# --- provenance of the system files ---------------------------------------------------

def _systems(t: Tables) -> pd.DataFrame:
    return t["systems"]


def _invalid(t: Tables) -> pd.DataFrame:
    s = _systems(t)
    return s[s["unlocated_hard_dropped"] > 0]


def _unranked_teams(t: Tables) -> list[str]:
    """Teams none of whose files reproduces a published leaderboard row."""
    s = _systems(t)
    ranked = set(s.loc[s["role"] != "variant", "team"])
    return sorted(set(s["team"]) - ranked)


def _official_winner_variants(t: Tables) -> str:
    """Languages whose official-IoU winner among the system files is a variant file."""
    e = t["convention_effects"]
    e = e[(e["lang"] != "MEAN") & (e["detectors"] == "systems") & (e["to"] == "char_f1")]
    s = _systems(t).set_index(["lang", "system"])
    hits = [f"{r.lang} ({r.winner_from})" for r in e.itertuples()
            if s.loc[(r.lang, r.winner_from), "role"] == "variant"]
    return names(hits)


# --- FaithBench -------------------------------------------------------------------------

def _fb_rule(t: Tables, to: str) -> pd.Series:
    return one(t["faithbench_rules"], to=to)


def _fb_tau(to: str) -> Callable[[Tables], str]:
    def f(t):
        r = _fb_rule(t, to)
        return ci(r["tau"], r["tau_low"], r["tau_high"], 2)
    return f


def _fb_type_tau(a: str, b: str) -> Callable[[Tables], str]:
    def f(t):
        r = one(t["faithbench_types"], **{"from": a, "to": b})
        return ci(r["tau"], r["tau_low"], r["tau_high"], 2)
    return f


def _fb_floor(t: Tables, family: str | None = None, types: bool = False) -> pd.DataFrame:
    f = t["faithbench_noise_floor"]
    return f[f["family"] == "type"] if types else f[f["family"] != "type"]


def _fb_table(t: Tables) -> str:
    r = t["faithbench_rules"]
    f = _fb_floor(t).set_index("to")
    view = pd.DataFrame({
        "change (one choice of the gold rule)": r["change"],
        "kind": r["family"],
        "tau [items]": [ci(a, b, c, 2) for a, b, c in zip(r["tau"], r["tau_low"],
                                                          r["tau_high"])],
        "winner": [w if not k else f"{w} -> {v}" for w, v, k in
                   zip(r["winner_from"], r["winner_to"], r["winner_changes"])],
        "resampling alone flips the winners (paper's rule / changed rule)": [
            f"{pct(f.loc[to, 'flip_share_from'])} / {pct(f.loc[to, 'flip_share_to'])}"
            if to in f.index else "–" for to in r["to"]],
        "beyond the noise floor": [("yes" if f.loc[to, "significant"] else "no")
                                   if to in f.index else "–" for to in r["to"]],
        "largest rank move": r["max_rank_move"].astype(int),
    })
    return md_table(view).rstrip("\n")


def _fb_scores(t: Tables, rule: str = "paper") -> pd.DataFrame:
    s = t["faithbench_scores"]
    return s[s["rule"] == rule].sort_values("rank")


def _fb_least(t: Tables) -> str:
    r = t["faithbench_rules"]
    return str(r.loc[r["tau"].idxmin(), "change"].split(" -> ", 1)[1])


# --- SHROOM-Visions ---------------------------------------------------------------------

def _sv_status(t: Tables, prefix: str) -> str:
    st = t["visions_systems"]["status"]
    return str(int(st.str.startswith(prefix).sum()))


def _sv_mean(t: Tables, table: str) -> pd.DataFrame:
    d = t[table]
    return d[d["lang"] == "MEAN"]


def _sv_floor(t: Tables, types: bool) -> pd.DataFrame:
    f = t["visions_noise_floor"]
    return f[(f["family"] == "type") == types]


def _sv_type_table(t: Tables) -> str:
    m = _sv_mean(t, "visions_types")
    view = pd.DataFrame({
        "types": [f"{a} / {b}" for a, b in zip(m["from"], m["to"])],
        "tau [items]": [ci(a, b, c, 2) for a, b, c in zip(m["tau"], m["tau_low"],
                                                          m["tau_high"])],
        "languages": m["languages"].astype(int),
        "winner changes": m["winner_changes"].astype(int),
        "of which beyond the noise floor": m["winner_changes_significant"].astype(int),
    })
    return md_table(view).rstrip("\n")


def _sv_tau(to: str) -> Callable[[Tables], str]:
    def f(t):
        r = one(_sv_mean(t, "visions_effects"), to=to)
        return ci(r["tau"], r["tau_low"], r["tau_high"], 2)
    return f


def _sv_scored_per_lang(t: Tables) -> pd.Series:
    s = t["visions_systems"]
    return s[s["status"] == "scored"].groupby("lang").size()


def _systems_per_language(t: Tables) -> pd.Series:
    return t["systems"].groupby("lang").size()


def _central_table(t: Tables) -> str:
    """Every benchmark's changes in one table: Mu-SHROOM's real system files and
    SHROOM-Visions' systems as means over languages, FaithBench's one ranking."""
    def iv(m, k, digits=2):
        return [ci(a, b, c, digits) for a, b, c in zip(m[k], m[f"{k}_low"], m[f"{k}_high"])]

    def wins(m, n):
        return [f"{int(v)} of {n} [{int(lo)}, {int(hi)}]" for v, lo, hi in zip(
            m["winner_changes"], m["winner_changes_low"], m["winner_changes_high"])]

    e = t["convention_effects"]
    ms = e[(e["lang"] == "MEAN") & (e["detectors"] == "systems")]
    sv = _sv_mean(t, "visions_effects")
    fb = t["faithbench_rules"]
    fbf = _fb_floor(t).set_index("to")
    dash = "–"
    parts = [
        pd.DataFrame({"benchmark": "Mu-SHROOM", "change": ms["change"], "kind": ms["family"],
                      "tau [items]": iv(ms, "tau"),
                      "tau [languages]": [ci(a, b, c, 2) for a, b, c in zip(
                          ms["tau"], ms["tau_lang_low"], ms["tau_lang_high"])],
                      "winner changes [items]": wins(ms, int(ms["languages"].max())),
                      "beyond the noise floor": ms["winner_changes_significant"].astype(int),
                      "largest rank move [items]": iv(ms, "max_rank_move", 1),
                      "median |Δ score| [items]": iv(ms, "median_abs_delta", 3)}),
        pd.DataFrame({"benchmark": "SHROOM-Visions", "change": sv["change"],
                      "kind": sv["family"], "tau [items]": iv(sv, "tau"),
                      "tau [languages]": dash,
                      "winner changes [items]": wins(sv, int(sv["languages"].max())),
                      "beyond the noise floor": sv["winner_changes_significant"].astype(int),
                      "largest rank move [items]": iv(sv, "max_rank_move", 1),
                      "median |Δ score| [items]": iv(sv, "median_abs_delta", 3)}),
        pd.DataFrame({"benchmark": "FaithBench", "change": fb["change"], "kind": fb["family"],
                      "tau [items]": [ci(a, b, c, 2) for a, b, c in zip(
                          fb["tau"], fb["tau_low"], fb["tau_high"])],
                      "tau [languages]": dash,
                      "winner changes [items]": [f"{int(v)} of 1" for v in fb["winner_changes"]],
                      "beyond the noise floor": [int(fbf.loc[to, "significant"])
                                                 if to in fbf.index else 0 for to in fb["to"]],
                      "largest rank move [items]": fb["max_rank_move"].astype(int).astype(str),
                      "median |Δ score| [items]": dash}),
    ]
    return md_table(pd.concat(parts, ignore_index=True)).rstrip("\n")


# --- humans and systems -----------------------------------------------------------------

def _loo_mean(comparison: str) -> Callable[[Tables], str]:
    def f(t):
        r = one(t["humans_vs_systems"], comparison=comparison, lang="MEAN")
        return ci(r["difference"], r["lang_low"], r["lang_high"])
    return f


def _loo_sig(comparison: str) -> Callable[[Tables], str]:
    return lambda t: str(int(one(t["humans_vs_systems"], comparison=comparison,
                                 lang="MEAN")["significant_below"]))


def _loo_msa_it(t: Tables) -> str:
    r = one(t["humans_vs_systems"], comparison="MSA (IoU row)", lang="IT")
    return ci(r["difference"], r["two_way_low"], r["two_way_high"])


def _human_shift(t: Tables) -> str:
    r = one(t["annotators_two_way"], lang="MEAN")
    return num(r["iou_a"] - r["iou_b"])


def _system_shift(t: Tables) -> str:
    v = t["systems_vs_loo"]
    return num(float(v.loc[v["kind"] == "system", "iou_hard_minus_loo"].median()))


def _two_way_widens(t: Tables) -> str:
    r = one(t["annotators_two_way"], lang="EN")
    item = r["iou_a_high"] - r["iou_a_low"]
    both = r["iou_a_two_way_high"] - r["iou_a_two_way_low"]
    return "widens" if both > item else "narrows" if both < item else "keeps"


def _rebuilt(t: Tables) -> pd.DataFrame:
    r = t["annotators_rebuilt"]
    return r[r["lang"] != "MEAN"]


def _rebuilt_ci(lang: str, kind: str) -> Callable[[Tables], str]:
    def f(t):
        r = one(t["annotators_rebuilt"], lang=lang)
        return ci(r["iou_loo"], r[f"iou_loo_{kind}_low"], r[f"iou_loo_{kind}_high"])
    return f


def _rebuilt_widest(t: Tables) -> pd.Series:
    r = _rebuilt(t)
    return r.loc[(r["width_rebuilt"] - r["width_fixed"]).idxmax()]


def _hs_count(col: str) -> Callable[[Tables], str]:
    return lambda t: str(int(t["humans_and_systems"][col].sum()))


def _spread(t: Tables, many: bool = False) -> tuple[float, str]:
    s = t["annotator_spread"]
    s = s[s["lang"].isin(["EN", "ZH"]) == many]
    r = s.loc[s["iou_range"].idxmax()]
    ref = "the hard labels" if r["reference"] == "a" else "LOO"
    return float(r["iou_range"]), f"{r['lang']}, against {ref}"


def _weighting(series: str, col: str, low: str | None = None, high: str | None = None):
    def f(t):
        r = one(t["language_weighting"], series=series, split="all")
        if low is None:
            return pct(r[col])
        return ci(r[col], r[low], r[high])
    return f


# --- provenance, baselines, leaderboards ------------------------------------------------

def _prov(col: str) -> Callable[[Tables], str]:
    def f(t):
        p = t["provenance_tests"]
        p = p[(p["series"] == "annotators_vs_loo") & (p["split"] == "test")]
        return names(p.loc[p[col] < uncertainty.ALPHA, "lang"])
    return f


def _prov_systems(t: Tables) -> str:
    p = t["provenance_systems"].drop_duplicates("lang")
    return names(p.loc[p["p_holm_mean_tau"] < uncertainty.ALPHA, "lang"])


def _prov_systems_tau(t: Tables) -> str:
    p = t["provenance_systems"].drop_duplicates("lang")
    sig = p[p["p_holm_mean_tau"] < uncertainty.ALPHA]
    return " and ".join(f"{num(r.mean_tau, 2)} in {r.lang}" for r in sig.itertuples()) or "–"


def _clf(t: Tables) -> pd.DataFrame:
    return t["token_classifier"]


def _conv(t: Tables, lang: str) -> pd.Series:
    return one(t["token_logit_conventions"], lang=lang)


def _sv(col: str) -> Callable[[Tables], str]:
    def f(t):
        r = _conv(t, "SV")
        return ci(r[col], r[f"{col}_low"], r[f"{col}_high"])
    return f


def _board_tau(ranking_name: str) -> Callable[[Tables], str]:
    def f(t):
        r = one(t["leaderboard_tau"], ranking=ranking_name, lang="MEAN")
        return ci(r["tau_iou_cor"], r["tau_low"], r["tau_high"])
    return f


def _board_size(agg) -> Callable[[Tables], str]:
    def f(t):
        b = t["leaderboard_tau"]
        return str(int(agg(b.loc[(b["ranking"] == "iou") & (b["lang"] != "MEAN"), "teams"])))
    return f


def _dd(col: str, agg) -> Callable[[Tables], str]:
    return lambda t: num(float(agg(t["detectable_difference"][col])))


def _undercoverage(col: str) -> Callable[[Tables], str]:
    def f(t):
        u = t["undercoverage"]
        u = u[u["lang"] != "ALL"]
        rng = np.random.default_rng(ranking.LANGUAGE_SEED)
        v = u[col].to_numpy(np.float64)
        pick = rng.integers(0, v.size, size=(ranking.LANGUAGE_RESAMPLES, v.size))
        from mycelium.stats.bootstrap import percentile_interval

        lo, hi = percentile_interval(v[pick].mean(axis=1), uncertainty.LEVEL, float(v.mean()))
        return ci(float(v.mean()), lo, hi)
    return f


def _metric_tau(b: str) -> Callable[[Tables], str]:
    def f(t):
        r = one(t["metric_tau_summary"], measure_a="iou_score", measure_b=b)
        return ci(r["tau_mean"], r["tau_mean_low"], r["tau_mean_high"], 2)
    return f


def _mark_all_shift(t: Tables) -> str:
    s = t["same_reference_tests"]
    s = s[(s["family"] == "hard_minus_loo") & (s["a"] == "mark_all vs hard")]
    return str(int(s["significant"].sum()))


CLAIMS: dict[str, Callable[[Tables], str]] = {
    "system_files": lambda t: str(len(t["systems"])),
    "languages": lambda t: str(t["systems"]["lang"].nunique()),
    "level": lambda t: f"{100 * uncertainty.LEVEL:.0f}%",
    "power": lambda t: f"{100 * uncertainty.POWER:.0f}%",
    "rtol": lambda t: f"1e{int(round(np.log10(check.RTOL)))}",
    "systems_min": lambda t: str(int(_systems_per_language(t).min())),
    "systems_max": lambda t: str(int(_systems_per_language(t).max())),
    "win_micro": _win("iou_micro"), "tau_micro": _tau("iou_micro"),
    "tau_sentence": _tau("iou_sentence"), "win_sentence": _win("iou_sentence"),
    "win_sentence_sig": _win_sig("iou_sentence"),
    "tau_response": _tau("response_f1"), "win_response": _win("response_f1"),
    "win_response_sig": _win_sig("response_f1"),
    "tau_response_ba": _tau("response_ba"), "win_response_ba": _win("response_ba"),
    "win_response_ba_sig": _win_sig("response_ba"),
    "invalid_files": lambda t: str(len(_invalid(t))),
    "invalid_teams": lambda t: names(sorted(_invalid(t)["team"].unique())),
    "invalid_roles": lambda t: names(sorted(_invalid(t)["role"].unique())),
    "unranked_teams": lambda t: names(_unranked_teams(t)),
    "ranked_teams": lambda t: names(sorted(set(_systems(t)["team"])
                                           - set(_unranked_teams(t)))),
    "winner_variants": _official_winner_variants,
    "fb_detectors": lambda t: str(int(_fb_scores(t)["detector"].nunique())),
    "fb_items": lambda t: str(int(_fb_scores(t)["items"].iloc[0])),
    "fb_table": _fb_table,
    "fb_least": _fb_least,
    "fb_least_tau": lambda t: _fb_tau(str(t["faithbench_rules"].loc[
        t["faithbench_rules"]["tau"].idxmin(), "to"]))(t),
    "fb_winner": lambda t: str(_fb_scores(t)["detector"].iloc[0]),
    "fb_runner_up": lambda t: str(_fb_scores(t)["detector"].iloc[1]),
    "fb_gap": lambda t: num(float(_fb_scores(t)["value"].iloc[0]
                                  - _fb_scores(t)["value"].iloc[1])),
    "fb_winner_ba": lambda t: ci(*_fb_scores(t)[["value", "low", "high"]].iloc[0]),
    "fb_changes": lambda t: str(len(_fb_floor(t))),
    "fb_sig": lambda t: str(int(_fb_floor(t)["significant"].sum())),
    "fb_type_uq": _fb_type_tau("Unwanted", "Questionable"),
    "fb_type_ub": _fb_type_tau("Unwanted", "Benign"),
    "fb_type_qb": _fb_type_tau("Questionable", "Benign"),
    "fb_type_pairs": lambda t: str(len(t["faithbench_types"])),
    "fb_type_changes": lambda t: str(int(t["faithbench_types"]["winner_changes"].sum())),
    "fb_type_sig": lambda t: str(int(_fb_floor(t, types=True)["significant"].sum())),
    "win_micro_sig": _win_sig("iou_micro"), "win_spancov_sig": _win_sig("spancov_f1"),
    "win_exact_sig": _win_sig("exact_f1"), "win_cor_sig": _win_sig("cor"),
    "win_parse": _win("cor_exact"), "win_trim": _win("iou_trim_ws"),
    "noise_total": lambda t: str(len(_floor(t))),
    "noise_sig": lambda t: str(int(_floor(t)["significant"].sum())),
    "noise_median_flip": lambda t: pct(float(_floor(t)["flip_share_from"].median())),
    "noise_half": lambda t: str(int((_floor(t)["flip_share_from"] >= 0.05).sum())),
    "noise_cleared": _floor_cleared,
    "central_resamples": lambda t: f"{ranking.CENTRAL_RESAMPLES:,}",
    "sv_files": lambda t: str(len(t["visions_systems"])),
    "sv_submissions": lambda t: str(t["visions_systems"]["system"].nunique()),
    "sv_scored": lambda t: _sv_status(t, "scored"),
    "sv_refused": lambda t: _sv_status(t, "refused"),
    "sv_refused_rules": lambda t: ", ".join(sorted(
        st[len("refused ("):-1] for st in t["visions_systems"]["status"].unique()
        if st.startswith("refused ("))),
    "sv_partial": lambda t: _sv_status(t, "not every"),
    "sv_oracle": lambda t: _sv_status(t, "oracle"),
    "sv_langs": lambda t: str(t["visions_systems"]["lang"].nunique()),
    "sv_systems_min": lambda t: str(int(_sv_scored_per_lang(t).min())),
    "sv_systems_max": lambda t: str(int(_sv_scored_per_lang(t).max())),
    "sv_items_min": lambda t: str(int(t["visions_systems"]["gold_items"].min())),
    "sv_items_max": lambda t: str(int(t["visions_systems"]["gold_items"].max())),
    "sv_type_table": _sv_type_table,
    "sv_changes": lambda t: str(len(_sv_floor(t, False))),
    "sv_changes_sig": lambda t: str(int(_sv_floor(t, False)["significant"].sum())),
    "sv_tau_ms": _sv_tau("ms_iou"), "sv_tau_fb": _sv_tau("fb_ba"),
    "sv_tau_response": _sv_tau("ms_response_f1"),
    "sv_type_changes": lambda t: str(len(_sv_floor(t, True))),
    "sv_type_sig": lambda t: str(int(_sv_floor(t, True)["significant"].sum())),
    "sv_type_pairs": lambda t: str(int((t["visions_types"]["lang"] != "MEAN").sum())),
    "sv_type_min_items": lambda t: str(int(min(t["visions_types"]["items_from"].min(),
                                               t["visions_types"]["items_to"].min()))),
    "variant_files": lambda t: str(int((t["systems"]["role"] == "variant").sum())),
    "loo_direction": _loo_direction,
    "loo_best_direction": lambda t: _direction([one(t["humans_vs_systems"],
                                                    comparison="best real system",
                                                    lang="MEAN")["difference"]]),
    "loo_sig_above": lambda t: str(sum(int(one(t["humans_vs_systems"], comparison=c,
                                               lang="MEAN")["significant_above"])
                                       for c in ("MSA (IoU row)", "NCL-UoR (IoU row)",
                                                 "UZH (IoU row)"))),
    "win_spancov": _win("spancov_f1"), "tau_spancov": _tau("spancov_f1"),
    "win_exact": _win("exact_f1"), "tau_exact": _tau("exact_f1"),
    "win_cor": _win("cor"), "tau_cor": _tau("cor"),
    "tau_ragtruth": _tau("ragtruth"),
    "tau_word": _tau("iou_word"), "tau_token": _tau("iou_token"),
    "win_word": _win("iou_word"), "win_token": _win("iou_token"),
    "tau_trim": _tau("iou_trim_ws"), "tau_untrimmed": _tau("iou_token_untrimmed"),
    "tau_parse": _tau("cor_exact"),
    "cor_parse_shift": lambda t: num(float(
        t["systems"]["cor_exact_minus_official"].abs().max()), 4),
    "central_table": _central_table,
    "loo_msa": _loo_mean("MSA (IoU row)"), "loo_ncl": _loo_mean("NCL-UoR (IoU row)"),
    "loo_uzh": _loo_mean("UZH (IoU row)"), "loo_best": _loo_mean("best real system"),
    "loo_msa_n": lambda t: str(int(one(t["humans_vs_systems"], comparison="MSA (IoU row)",
                                       lang="MEAN")["languages"])),
    "loo_msa_sig": _loo_sig("MSA (IoU row)"), "loo_ncl_sig": _loo_sig("NCL-UoR (IoU row)"),
    "loo_uzh_sig": _loo_sig("UZH (IoU row)"), "loo_best_sig": _loo_sig("best real system"),
    "loo_msa_it": _loo_msa_it,
    "human_shift": _human_shift, "system_shift": _system_shift,
    "en_a_items": lambda t: ci(*one(t["annotators_two_way"], lang="EN")[
        ["iou_a", "iou_a_low", "iou_a_high"]]),
    "two_way_widens": _two_way_widens,
    "rebuilt_wider": lambda t: str(int((_rebuilt(t)["width_rebuilt"]
                                        > _rebuilt(t)["width_fixed"]).sum())),
    "en_b_fixed": _rebuilt_ci("EN", "fixed"), "en_b_rebuilt": _rebuilt_ci("EN", "rebuilt"),
    "rebuilt_widest_lang": lambda t: str(_rebuilt_widest(t)["lang"]),
    "rebuilt_widest": lambda t: _rebuilt_ci(str(_rebuilt_widest(t)["lang"]), "rebuilt")(t),
    "rebuilt_widest_fixed": lambda t: _rebuilt_ci(str(_rebuilt_widest(t)["lang"]),
                                                  "fixed")(t),
    "rebuilt_undefined_max": lambda t: pct(float(_rebuilt(t)["undefined_share"].max())),
    "rebuilt_mean": lambda t: ci(*one(t["annotators_rebuilt"], lang="MEAN")[
        ["iou_loo", "iou_loo_rebuilt_low", "iou_loo_rebuilt_high"]]),
    "en_a_two_way": lambda t: ci(*one(t["annotators_two_way"], lang="EN")[
        ["iou_a", "iou_a_two_way_low", "iou_a_two_way_high"]]),
    "top_above_b_items": _hs_count("published_top_above_b_high"),
    "top_above_b_two_way": _hs_count("published_top_above_b_high_two_way"),
    "top_above_a_two_way": _hs_count("published_top_above_a_high_two_way"),
    "spread_max": lambda t: num(_spread(t)[0]),
    "spread_lang": lambda t: _spread(t)[1],
    "spread_max_en_zh": lambda t: num(_spread(t, many=True)[0]),
    "alpha": lambda t: f"{uncertainty.ALPHA:g}",
    "cor_parse_teams": lambda t: names(sorted(t["systems"].loc[
        t["systems"]["cor_exact_minus_official"].abs() > 0, "team"].unique())) + " files",
    "teams_named": lambda t: names(sorted(t["systems"]["team"].unique())),
    "heavy_share": _weighting("annotators vs hard labels (a)", "share_rows_en_es_zh"),
    "pooled_a": _weighting("annotators vs hard labels (a)", "pooled_iou", "pooled_low",
                           "pooled_high"),
    "mean_a": _weighting("annotators vs hard labels (a)", "mean_over_languages",
                         "mean_lang_low", "mean_lang_high"),
    "pooled_b": _weighting("annotators vs LOO (b)", "pooled_iou", "pooled_low", "pooled_high"),
    "mean_b": _weighting("annotators vs LOO (b)", "mean_over_languages", "mean_lang_low",
                         "mean_lang_high"),
    "prov_raw": _prov("p_holm"), "prov_adjusted": _prov("p_holm_adjusted"),
    "prov_systems": _prov_systems, "prov_systems_tau": _prov_systems_tau,
    "clf_auroc_min": lambda t: num(float(_clf(t)["char_auroc"].min())),
    "clf_auroc_max": lambda t: num(float(_clf(t)["char_auroc"].max())),
    "clf_beats": lambda t: str(int((_clf(t)["minus_mark_all_significant"]
                                    & (_clf(t)["minus_mark_all_difference"] > 0)).sum())),
    "clf_gain": lambda t: num(float(_clf(t)["minus_mark_all_difference"].mean())),
    "sv_tied": lambda t: pct(_conv(t, "SV")["share_tied_at_max"]),
    "sv_minmax": _sv("iou_minmax"), "sv_midrank": _sv("iou_midrank"),
    "sv_mark_all": _sv("iou_mark_all"),
    "en_auroc_trim": lambda t: ci(*_conv(t, "EN")[["auroc_trimmed", "auroc_trimmed_low",
                                                   "auroc_trimmed_high"]]),
    "en_auroc_untrim": lambda t: ci(*_conv(t, "EN")[["auroc_untrimmed", "auroc_untrimmed_low",
                                                     "auroc_untrimmed_high"]]),
    "auroc_trim_sig": lambda t: str(int(t["token_logit_conventions"][
        "trimmed_minus_untrimmed_auroc_significant"].sum())),
    "same_top": lambda t: str(int(one(t["leaderboard_tau"], ranking="iou", lang="MEAN")[
        "same_top_team_both_rankings"])),
    "board_tau_iou": _board_tau("iou"), "board_tau_cor": _board_tau("cor"),
    "official_iou": lambda t: str(int(t["systems"]["iou_matches_official"].sum())),
    "official_cor": lambda t: str(int(t["systems"]["cor_matches_official"].sum())),
    "teams": lambda t: str(t["systems"]["team"].nunique()),
    "leaderboard_files": lambda t: str(int((t["systems"]["role"] != "variant").sum())),
    "published_min": _board_size(np.min), "published_max": _board_size(np.max),
    "en_annotators": lambda t: str(int(one(t["annotators_two_way"], lang="EN")["annotators"])),
    "zh_annotators": lambda t: str(int(one(t["annotators_two_way"], lang="ZH")["annotators"])),
    "test_items_min": lambda t: str(int(t["detectable_difference"]["test_items"].min())),
    "test_items_max": lambda t: str(int(t["detectable_difference"]["test_items"].max())),
    "mdd_min": _dd("mdd_annotator_pair", np.min),
    "mdd_max": _dd("mdd_annotator_pair", np.max),
    "adjacent_gap": lambda t: num(float(one(t["leaderboard_tau"], ranking="iou", lang="MEAN")[
        "median_adjacent_gap"])),
    "pinpoint_f1": _undercoverage("span_coverage_f1_refs"),
    "pinpoint_iou": _undercoverage("iou_refs"),
    "metric_tau_spancov": _metric_tau("span_coverage_f1"),
    "metric_tau_cor": _metric_tau("cor"),
    "mark_all_shift_n": _mark_all_shift,
    "resamples": lambda t: f"{uncertainty.RESAMPLES:,}",
    "seed_items": lambda t: str(uncertainty.SEED),
    "seed_annotators": lambda t: str(twoway.ANNOTATOR_SEED),
    "language_resamples": lambda t: f"{ranking.LANGUAGE_RESAMPLES:,}",
    "seed_languages": lambda t: str(ranking.LANGUAGE_SEED),
    "permutations": lambda t: f"{PERMUTATIONS:,}",
    "seed_permutations": lambda t: str(PERMUTATION_SEED),
}
