"""`score_psiloqa`: PsiloQA's evaluation protocol, per language, from frames with scores.

Reproduces ``evaluate_uncertainty`` of s-nlp/PsiloQA @
95233aefcfbdfc2b0876ffc7d45729d7fc69bd2d, ``psilo/methods/uncertainty/evaluation.py``:
per language, a threshold tuned on the validation answers (a 2,000-step grid between
the lowest and highest character score, by mean per-example IoU), then on the test
answers the mean per-example IoU at that threshold and the mean per-example character
AP. Its departures from SPEC section 9 are the ``psiloqa`` profile's score rules.
"""

from __future__ import annotations

import pandas as pd

from ..evaluate import evaluate
from ..scores.thresholds import tune_threshold

__all__ = ["score_psiloqa"]

COLUMNS = ["threshold", "iou", "char_ap", "examples", "validation_examples"]


def score_psiloqa(validation: pd.DataFrame, test: pd.DataFrame, *,
                  references: str = "hal_labels", text: str = "llm_answer",
                  lang: str = "lang", token_offsets: str = "token_offsets",
                  token_scores: str = "token_scores", profile="psiloqa",
                  steps: int = 2000) -> pd.DataFrame:
    """PsiloQA's numbers for one detector: a threshold per language, test IoU and AP.

    Parameters
    ----------
    validation, test : pandas.DataFrame
        Frames as `mycelium.read_psiloqa` gives, with the detector's output added: a
        column of token offsets (the tokenizer's offset mapping, code points) and one of
        token scores (one per token; the published evaluator's value lists carry one
        extra trailing value that it never places: drop it).
    references, text, lang, token_offsets, token_scores : str
        Column names. ``"hal_labels"`` (the default) holds the spans the published
        evaluator locates from ``annotated_span``; ``"labels"`` the published spans.
    profile : str or Profile, default "psiloqa"
        Its score rules decide the rest: ``>=`` the threshold, token values written in
        token order, AP 0.0 for an answer without a hallucinated character.
    steps : int, default 2000
        The threshold grid, ``tune_threshold(thresholds={"steps": steps})``.

    Returns
    -------
    pandas.DataFrame
        One row per test language (sorted): ``lang``, ``threshold`` (tuned on that
        language's validation answers), ``iou`` and ``char_ap`` (test means),
        ``examples`` (test answers) and ``validation_examples``. ``attrs["signature"]``:
        the tuning signature, then ``|by:<lang column>``.

    Raises
    ------
    ValueError
        A test language without validation answers (the published evaluator fails with
        a KeyError there), or what `tune_threshold` / `evaluate` raise.

    Notes
    -----
    The values are the published evaluator's (golden cases in tests/golden/), which it
    prints multiplied by 100 to two decimals.

    Examples
    --------
    >>> import pandas as pd
    >>> val = pd.DataFrame({"lang": ["en"] * 2, "llm_answer": ["ab cd", "ef"],
    ...                     "hal_labels": [[[3, 5]], []],
    ...                     "token_offsets": [[(0, 2), (2, 5)], [(0, 2)]],
    ...                     "token_scores": [[0.1, 0.9], [0.3]]})
    >>> out = score_psiloqa(val, val)
    >>> out[["lang", "iou", "char_ap", "examples"]].values.tolist()
    [['en', 0.8333333333333333, 0.3333333333333333, 2]]
    """
    missing = sorted(set(test[lang].dropna()) - set(validation[lang].dropna()))
    if missing:
        raise ValueError(f"Expected validation answers for every test language, got none "
                         f"for {missing[0]!r}, at validation[{lang!r}]; fix by adding its "
                         "validation answers (the threshold is tuned per language).")
    rows, signature = [], ""
    for code in sorted(test[lang].dropna().unique()):
        val = validation[validation[lang] == code]
        tst = test[test[lang] == code]
        tuned = tune_threshold(list(val[references]), text=list(val[text]),
                               token_offsets=list(val[token_offsets]),
                               token_scores=list(val[token_scores]), profile=profile,
                               thresholds={"steps": steps})
        report = evaluate(list(tst[references]), text=list(tst[text]),
                          token_offsets=list(tst[token_offsets]),
                          token_scores=list(tst[token_scores]),
                          threshold=tuned["threshold"], profile=profile,
                          metrics=["iou", "char_ap"])
        signature = signature or tuned["signature"]
        rows.append((code, float(tuned["threshold"]), report["iou"]["score"],
                     report["char_ap"]["score"], len(tst), len(val)))
    out = pd.DataFrame(rows, columns=[lang] + COLUMNS)
    out.attrs["signature"] = f"{signature}|by:{lang}"
    return out
