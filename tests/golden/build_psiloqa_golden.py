"""Build tests/golden/psiloqa_cases.json by running PsiloQA's published evaluator.

Not part of the test suite (it needs the evaluator's source and its dependencies). Run in
a throwaway environment with numpy 1.26.4, scikit-learn 1.7.2 and pandas (the versions
of the repository's uv.lock for numpy and scikit-learn), the repository checked out:

    git -C <s-nlp/PsiloQA> show 95233aefcfbdfc2b0876ffc7d45729d7fc69bd2d:psilo/methods/uncertainty/evaluation.py > /tmp/psilo_eval/evaluation.py
    python tests/golden/build_psiloqa_golden.py /tmp/psilo_eval/evaluation.py

The evaluator module is imported unmodified. Its two heavy imports are stood in for by
small modules installed in ``sys.modules`` before the import: ``torch`` (only
``torch.tensor`` and ``torch.where`` are used, as numpy's ``asarray`` / ``nonzero``) and
``transformers.AutoTokenizer`` (a tokenizer returning the offset mapping written in the
case, so the evaluator places token values exactly where a real tokenizer's offsets
would). ``evaluate_uncertainty`` prints its means rounded to two decimals; the exact
values are read from its local variables when it returns (``thr_val``, ``test_iou``,
``test_ap``), through ``sys.setprofile``.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

REPO = "s-nlp/PsiloQA"
COMMIT = "95233aefcfbdfc2b0876ffc7d45729d7fc69bd2d"
PATH = "psilo/methods/uncertainty/evaluation.py"
OUT = Path(__file__).with_name("psiloqa_cases.json")

OFFSETS: dict[tuple[str, str], list] = {}  # (checkpoint, text) -> offset mapping


def _stubs() -> None:
    torch = types.ModuleType("torch")
    torch.tensor = np.asarray
    torch.where = np.nonzero

    class Tensor:  # scipy (under scikit-learn) probes torch.Tensor when torch is loaded
        pass

    torch.Tensor = Tensor
    transformers = types.ModuleType("transformers")

    class Tokenizer:
        def __init__(self, name):
            self.name = name

        def __call__(self, text, return_offsets_mapping, add_special_tokens):
            return {"offset_mapping": [tuple(o) for o in OFFSETS[(self.name, text)]]}

    class AutoTokenizer:
        @staticmethod
        def from_pretrained(name):
            return Tokenizer(name)

    transformers.AutoTokenizer = AutoTokenizer
    sys.modules["torch"] = torch
    sys.modules["transformers"] = transformers


# Rows: (lang, llm_answer, annotated_span, offsets, MSP values, CCP values, Focus values).
# Each value list has one more entry than the offsets, as the evaluator asserts (the
# last value is never placed). Scores overlap and repeat on purpose.
VALIDATION = [
    ("en", "Paris is in Germany.", "Paris is in [HAL]Germany[/HAL].",
     [(0, 5), (5, 8), (8, 11), (11, 19), (19, 20)],
     [0.1, 0.2, 0.1, 0.9, 0.3, 0.0], [0.2, 0.2, 0.2, 0.6, 0.1, 0.5],
     [0.05, 0.4, 0.1, 0.7, 0.7, 0.2]),
    ("en", "It has 3 moons and 2 rings.", "It has [HAL]3[/HAL] moons and 2 rings.",
     [(0, 2), (2, 6), (6, 8), (8, 14), (14, 18), (18, 20), (20, 26), (26, 27)],
     [0.1, 0.1, 0.8, 0.3, 0.1, 0.6, 0.2, 0.1, 0.0],
     [0.3, 0.1, 0.7, 0.7, 0.1, 0.2, 0.2, 0.1, 0.9],
     [0.2, 0.2, 0.5, 0.5, 0.1, 0.4, 0.1, 0.0, 0.3]),
    ("en", "The river is long.", "The river is long.",
     [(0, 3), (3, 9), (9, 12), (12, 17), (17, 18)],
     [0.2, 0.1, 0.1, 0.4, 0.1, 0.9], [0.1, 0.1, 0.3, 0.3, 0.2, 0.2],
     [0.3, 0.2, 0.1, 0.1, 0.6, 0.1]),
    # Overlapping offsets (a byte-level tokenizer's two tokens of one character): the
    # later token's value wins on the shared character.
    ("de", "Berlin liegt am Rhein.", "Berlin liegt am [HAL]Rhein[/HAL].",
     [(0, 6), (6, 12), (12, 15), (15, 18), (17, 21), (21, 22)],
     [0.1, 0.2, 0.1, 0.7, 0.4, 0.2, 0.0], [0.2, 0.1, 0.3, 0.8, 0.9, 0.1, 0.4],
     [0.1, 0.3, 0.2, 0.6, 0.2, 0.1, 0.5]),
    ("de", "Er ist 40 Jahre alt.", "Er ist [HAL]40[/HAL] Jahre alt.",
     [(0, 2), (2, 6), (6, 9), (9, 15), (15, 19), (19, 20)],
     [0.1, 0.1, 0.9, 0.2, 0.1, 0.1, 0.3], [0.4, 0.1, 0.5, 0.5, 0.2, 0.1, 0.1],
     [0.2, 0.2, 0.8, 0.1, 0.1, 0.3, 0.6]),
]
TEST = [
    ("en", "Rome is in Spain, not Italy.", "Rome is in [HAL]Spain[/HAL], not Italy.",
     [(0, 4), (4, 7), (7, 10), (10, 16), (16, 17), (17, 21), (21, 27), (27, 28)],
     [0.1, 0.2, 0.1, 0.8, 0.1, 0.3, 0.2, 0.1, 0.5],
     [0.2, 0.1, 0.1, 0.6, 0.2, 0.6, 0.1, 0.1, 0.0],
     [0.3, 0.1, 0.2, 0.5, 0.1, 0.2, 0.4, 0.2, 0.1]),
    # No hallucinated character: its AP enters the mean (scikit-learn gives 0.0).
    ("en", "Water boils at 100 C.", "Water boils at 100 C.",
     [(0, 5), (5, 11), (11, 14), (14, 18), (18, 20), (20, 21)],
     [0.1, 0.1, 0.2, 0.6, 0.1, 0.1, 0.2], [0.1, 0.2, 0.1, 0.3, 0.1, 0.1, 0.1],
     [0.2, 0.1, 0.1, 0.2, 0.6, 0.1, 0.1]),
    # The chunk "a" is found from the previous chunk's end: the first "a" of the
    # answer, not the tagged one (the evaluator's rule), then "b" after it.
    ("en", "a b a b", "a b [HAL]a[/HAL] [HAL]b[/HAL]",
     [(0, 1), (1, 3), (3, 5), (5, 7)],
     [0.7, 0.2, 0.6, 0.5, 0.0], [0.3, 0.8, 0.1, 0.9, 0.0], [0.5, 0.5, 0.5, 0.4, 0.0]),
    ("de", "Die Elbe fließt nach Süden.", "Die Elbe fließt nach [HAL]Süden[/HAL].",
     [(0, 3), (3, 8), (8, 15), (15, 20), (20, 26), (26, 27)],
     [0.1, 0.3, 0.2, 0.1, 0.8, 0.2, 0.1], [0.2, 0.2, 0.1, 0.2, 0.9, 0.1, 0.3],
     [0.1, 0.6, 0.2, 0.1, 0.3, 0.1, 0.2]),
    ("de", "Sie wurde 1990 geboren.", "Sie wurde [HAL]1990[/HAL] geboren.",
     [(0, 3), (3, 9), (9, 14), (14, 22), (22, 23)],
     [0.1, 0.2, 0.5, 0.3, 0.1, 0.2], [0.3, 0.1, 0.7, 0.2, 0.1, 0.1],
     [0.2, 0.3, 0.4, 0.4, 0.1, 0.1]),
]
METHODS = ("MSP", "CCP", "Focus")


def _frame(rows, checkpoint: str) -> pd.DataFrame:
    out = []
    for lang, answer, annotated, offsets, *values in rows:
        OFFSETS[(checkpoint, answer)] = offsets
        rec = {"lang": lang, "llm_answer": answer, "annotated_span": annotated,
               "llm_checkpoint": checkpoint, "question": "q", "wiki_passage": "p"}
        for name, v in zip(METHODS, values):
            rec[name] = [v]  # the evaluator reads row[method][0]
        out.append(rec)
    return pd.DataFrame(out)


def _run(evaluation, val: pd.DataFrame, test: pd.DataFrame) -> dict:
    captured: dict = {}

    def profiler(frame, event, arg):
        if event == "return" and frame.f_code is evaluation.evaluate_uncertainty.__code__:
            captured.update({k: frame.f_locals[k] for k in ("thr_val", "test_iou",
                                                             "test_ap")})

    sys.setprofile(profiler)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "No positive class found in y_true"
            evaluation.evaluate_uncertainty(val, test)
    finally:
        sys.setprofile(None)
    return captured


def main(evaluation_path: str) -> None:
    _stubs()
    spec = importlib.util.spec_from_file_location("psiloqa_evaluation", evaluation_path)
    evaluation = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(evaluation)
    checkpoint = "stub/offsets-from-case"
    val, test = _frame(VALIDATION, checkpoint), _frame(TEST, checkpoint)
    got = _run(evaluation, val, test)
    rows = []
    for split, frame, source in (("validation", val, VALIDATION), ("test", test, TEST)):
        for (_, r), src in zip(frame.iterrows(), source):
            labels = evaluation.row_to_psiloqa_record(r.to_dict())["labels"]
            rows.append({"split": split, "lang": r.lang, "llm_answer": r.llm_answer,
                         "annotated_span": r.annotated_span, "offsets": src[3],
                         "values": {m: r[m][0] for m in METHODS},
                         "gold": [[s["start"], s["end"]] for s in labels]})
    results = {}
    for lang in sorted(got["thr_val"]):
        results[lang] = {m: {
            "threshold": float(got["thr_val"][lang][m]),
            "iou": [float(x) for x in got["test_iou"][lang][m]],
            "ap": [float(x) for x in got["test_ap"][lang][m]],
            "iou_mean": float(np.array(got["test_iou"][lang][m]).mean()),
            "ap_mean": float(np.array(got["test_ap"][lang][m]).mean()),
        } for m in METHODS}
    import sklearn

    OUT.write_text(json.dumps({
        "provenance": {
            "repository": REPO, "commit": COMMIT, "path": PATH,
            "function": "evaluate_uncertainty (and row_to_psiloqa_record for 'gold')",
            "command": "python tests/golden/build_psiloqa_golden.py "
                       "/tmp/psilo_eval/evaluation.py",
            "environment": {"numpy": np.__version__, "scikit-learn": sklearn.__version__,
                            "pandas": pd.__version__},
            "stubs": "torch.tensor/torch.where as numpy asarray/nonzero; "
                     "transformers.AutoTokenizer returning each row's 'offsets'",
        },
        "schema": "rows: the validation and test examples (offsets: the tokenizer's "
                  "offset mapping; values: one value per method per token plus one "
                  "unused trailing value, as the evaluator asserts; gold: the spans "
                  "row_to_psiloqa_record locates). results[lang][method]: the threshold "
                  "tuned on validation, per-example test IoU and AP lists in test row "
                  "order, and their means.",
        "rows": rows, "results": results,
    }, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
