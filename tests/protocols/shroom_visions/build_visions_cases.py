"""Build ``cases.json``: SHROOM-Visions file pairs and what the kit's scorer makes of them.

The kit's scorer is the organisers' ``scorer.py`` as vendored in
sckwokyboom/Vision-Hallucination-Detector at commit
0db49dcddbb5fb56f8f74b7945ae8932a8f79d54, ``scripts/official/official_scorer.py``. It is
not part of this project: get a copy and run

    python tests/protocols/shroom_visions/build_visions_cases.py /path/to/official_scorer.py

Every case is a reference and a prediction file, written here line by line (the text of
each line is kept, since the numbers' spelling matters to pandas' float parser). For each,
the scorer is run through its own command line (``python official_scorer.py REF PRED OUT``,
PYTHONHASHSEED=0) and its standard output, OUT file and last error line are recorded; its
per-item Cor, IoU and Cor lbl are taken by importing it and calling its own functions.
The gold of every case carries ``raw_annots`` (the scorer crashes without it); the tests
also score each case with ``raw_annots`` removed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
KIT = {"repository": "sckwokyboom/Vision-Hallucination-Detector",
       "commit": "0db49dcddbb5fb56f8f74b7945ae8932a8f79d54",
       "path": "scripts/official/official_scorer.py",
       "command": "PYTHONHASHSEED=0 python official_scorer.py REF PRED OUT"}
LABELS = ["invention", "mischaracterization", "OCR", "miscounting", "other"]


def g(i, text, labels, raw=None):
    """A gold line (``raw_annots``: annotator -> its marks, ``|`` = none)."""
    return json.dumps({"id": i, "response": text, "labels": labels,
                       "raw_annots": {} if raw is None else raw})


def p(i, labels):
    return json.dumps({"id": i, "labels": labels})


def s(a, b, prob, label="invention"):
    return {"start": a, "end": b, "prob": prob, "label": label}


TEXT = "The red bus has four wheels and 2 doors."  # 40 characters


def hand_cases():
    t = TEXT
    n = len(t)
    c = []

    def add(name, rule, gold, pred):
        c.append({"name": name, "rule": rule, "gold": gold, "pred": pred})

    add("basic", "cor, iou and cor lbl of one item",
        [g("a", t, [s(4, 7, 0.5), s(20, 26, 1.0, "miscounting")])],
        [p("a", [s(4, 9, 0.7), s(22, 26, 0.2, "miscounting")])])
    add("pred_last_wins_ab", "predicted spans overwrite, last in list order wins",
        [g("a", t, [s(4, 12, 0.5)])],
        [p("a", [s(0, 10, 0.9), s(5, 20, 0.1)])])
    add("pred_last_wins_ba", "predicted spans overwrite, last in list order wins",
        [g("a", t, [s(4, 12, 0.5)])],
        [p("a", [s(5, 20, 0.1), s(0, 10, 0.9)])])
    add("pred_overlap_labels", "overwrites across labels; per label each side alone",
        [g("a", t, [s(4, 12, 0.5), s(10, 16, 0.5, "OCR")])],
        [p("a", [s(0, 10, 0.9, "OCR"), s(5, 20, 0.3), s(8, 9, 0.6, "OCR")])])
    add("gold_overlap_sum", "gold spans add their probabilities",
        [g("a", t, [s(0, 10, 0.25), s(5, 15, 0.5, "OCR"), s(8, 20, 0.25)])],
        [p("a", [s(0, 20, 0.4)])])
    add("near_tie", "0.3333333333 + 0.3333333333 against 0.6666666667 rank apart",
        [g("a", t, [s(0, 10, 0.3333333333), s(0, 10, 0.3333333333), s(10, 20, 0.6666666667),
                    s(20, 25, 0.3333333333)])],
        [p("a", [s(0, 10, 0.5), s(10, 20, 0.5), s(20, 25, 0.2)])])
    add("near_tie_order", "sums in list order: 0.1 + 0.2 + 0.3 against 0.3 + 0.2 + 0.1",
        [g("a", t, [s(0, 5, 0.1), s(0, 5, 0.2), s(0, 5, 0.3), s(5, 10, 0.3), s(5, 10, 0.2),
                    s(5, 10, 0.1), s(10, 15, 0.6)])],
        [p("a", [s(0, 5, 0.9), s(5, 10, 0.1), s(10, 15, 0.5)])])
    add("constant_both_zero", "constant rule: gold all zero and prediction all zero -> 1.0",
        [g("a", t, [])], [p("a", [])])
    add("constant_gold_zero_pred_const", "constant rule: gold all zero, prediction a nonzero "
        "constant -> 0.0", [g("a", t, [])], [p("a", [s(0, n, 0.7)])])
    add("constant_gold_zero_pred_zero_spans", "constant rule: prob-0 prediction spans are "
        "all zero -> 1.0 (IoU counts them)", [g("a", t, [])], [p("a", [s(3, 9, 0.0)])])
    add("constant_gold_const_pred_const", "constant rule: both nonzero constants (different) "
        "-> 1.0", [g("a", t, [s(0, n, 0.4)])], [p("a", [s(0, n, 0.9)])])
    add("constant_gold_const_pred_zero", "constant rule: gold a nonzero constant, prediction "
        "all zero -> 0.0", [g("a", t, [s(0, n, 0.4)])], [p("a", [])])
    add("constant_gold_const_sum", "constant rule: a constant made of summed spans",
        [g("a", t, [s(0, n, 0.5), s(0, n, 0.5)])], [p("a", [s(0, 20, 1.0), s(20, n, 1.0)])])
    add("constant_one_side", "constant rule: one side constant, the other not -> 0.0",
        [g("a", t, [s(3, 9, 0.5)])], [p("a", [])])
    add("constant_pred_varies_gold_zero", "constant rule: gold all zero, prediction varies "
        "-> 0.0", [g("a", t, [])], [p("a", [s(3, 9, 0.5)])])
    add("constant_after_rounding", "constant rule on values rounded to 8 dp: 1e-9 is 0",
        [g("a", t, [s(3, 9, 0.5)])], [p("a", [s(0, 10, 1e-09), s(12, 14, 4e-09)])])
    add("not_constant_after_rounding", "8 dp keeps 6e-9 apart from 0 (rounds to 1e-8)",
        [g("a", t, [s(3, 9, 0.5)])], [p("a", [s(0, 10, 6e-09)])])
    add("constant_rounding_gold", "gold differences below 8 dp are constant, but Spearman "
        "would use them", [g("a", t, [s(0, n, 0.5), s(3, 9, 1e-10)])],
        [p("a", [s(3, 9, 0.5)])])
    add("one_char", "a one-character text is constant on both sides",
        [g("a", "x", [s(0, 1, 0.5)])], [p("a", [s(0, 1, 0.2)])])
    add("empty_text", "an empty text: Spearman of two empty vectors is NaN",
        [g("a", "", []), g("b", t, [s(0, 4, 1.0)])], [p("a", []), p("b", [s(0, 4, 1.0)])])
    add("empty_union", "cor lbl is 1.0 when neither side has a label",
        [g("a", t, []), g("b", t, [s(0, 4, 1.0)])], [p("a", []), p("b", [])])
    add("label_only_pred", "a label only the prediction has is in the union",
        [g("a", t, [s(4, 7, 0.5)])], [p("a", [s(4, 7, 0.5), s(10, 12, 0.4, "OCR")])])
    add("label_only_gold", "a label only the gold has is in the union",
        [g("a", t, [s(4, 7, 0.5), s(10, 12, 0.4, "other")])], [p("a", [s(4, 7, 0.5)])])
    add("gold_label_case", "gold labels are not checked: 'ocr' and 'OCR' are two labels",
        [g("a", t, [s(4, 7, 0.5, "ocr")])], [p("a", [s(4, 7, 0.5, "OCR")])])
    add("prob_zero_iou", "IoU counts prediction spans of prob 0",
        [g("a", t, [s(4, 10, 0.5)])], [p("a", [s(0, 6, 0.0), s(8, 9, 0.3)])])
    add("prob_zero_gold_iou", "IoU counts gold spans of prob 0",
        [g("a", t, [s(4, 10, 0.0), s(12, 14, 0.5)])], [p("a", [s(12, 14, 0.3)])])
    add("empty_and_reversed_spans", "empty and reversed spans write nothing but bring their "
        "label", [g("a", t, [s(4, 10, 0.5)])],
        [p("a", [s(4, 10, 0.5), s(12, 12, 0.5, "OCR"), s(20, 15, 0.5, "other")])])
    add("partial_submission", "the gold is cut to the predicted ids",
        [g("c", t, [s(4, 10, 0.5)]), g("a", t, [s(0, 3, 1.0)]), g("b", t, [])],
        [p("b", [s(1, 2, 0.5)]), p("c", [s(4, 10, 0.9)])])
    add("id_order", "pairs in sorted id order (the mean sums in that order)",
        [g(x, t, [s(k, k + 5, 0.1 * (k + 1))]) for k, x in enumerate(["b", "a", "c", "aa"])],
        [p(x, [s(k, k + 3, 0.2)]) for k, x in enumerate(["aa", "c", "a", "b"])])
    add("numeric_ids", "ids that look like integers sort as numbers",
        [g(x, t, [s(k, k + 5, 0.3 + 0.01 * k)]) for k, x in enumerate(["10", "9", "100"])],
        [p(x, [s(k, k + 2, 0.2)]) for k, x in enumerate(["9", "100", "10"])])
    add("fast_float", "pandas' fast parser: 17 digits tie with 15",
        [g("a", t, [s(0, 5, 0.8812335261248792), s(5, 10, 0.881233526124879),
                    s(10, 15, 0.30000000000000004)])],
        [p("a", [s(0, 5, 0.5000000000000001), s(5, 10, 0.5), s(10, 15, 0.3)])])
    add("raw_annots", "classification lines from raw_annots (majority not '|')",
        [g("a", t, [s(4, 7, 0.5)], {"x": "4|7", "y": "|", "z": "5|6"}),
         g("b", t, [], {"x": "|", "y": "|"}),
         g("c", t, [s(1, 2, 1.0)], {"x": "1|2", "y": "|"}),
         g("d", t, [], {"x": "|"})],
        [p("a", [s(4, 7, 0.5)]), p("b", [s(0, 1, 0.0)]), p("c", []), p("d", [])])
    add("unicode", "offsets are code points",
        [g("a", "Le 猫 est sur le 🚌, pas ça.", [s(3, 4, 1.0), s(16, 17, 0.5, "OCR")])],
        [p("a", [s(3, 4, 0.9), s(15, 18, 0.4, "OCR")])])
    # Refusals: one bad predicted span refuses the whole file.
    bad = {"prob_int": s(0, 3, 1), "start_float": s(0.0, 3, 0.5),
           "end_bool": s(0, True, 0.5), "prob_str": s(0, 3, "0.5"),
           "label_lower": s(0, 3, 0.5, "ocr"), "label_unknown": s(0, 3, 0.5, "halluc"),
           "label_int": s(0, 3, 0.5, 3), "prob_null": s(0, 3, None),
           "no_label_key": {"start": 0, "end": 3, "prob": 0.5},
           "span_list": [0, 3]}
    for name, span in bad.items():
        add("refuse_" + name, "type checks and the closed label set refuse the file",
            [g("a", t, []), g("b", t, [])], [p("a", []), p("b", [s(5, 6, 0.5), span])])
    add("refuse_extra_id", "a predicted id missing from the gold refuses",
        [g("a", t, [])], [p("a", []), p("z", [])])
    add("refuse_duplicate_id", "a repeated predicted id refuses",
        [g("a", t, []), g("b", t, [])], [p("a", []), p("a", [])])
    add("refuse_no_labels", "a prediction file without a labels field refuses",
        [g("a", t, [])], [json.dumps({"id": "a"})])
    add("refuse_pred_beyond_text", "a predicted span past the text refuses (IndexError)",
        [g("a", t, [])], [p("a", [s(30, 41, 0.5)])])
    add("refuse_gold_beyond_text", "a gold span past the text refuses (IndexError)",
        [g("a", t, [s(30, 41, 0.5)])], [p("a", [])])
    add("refuse_labels_null", "a null labels value refuses",
        [g("a", t, []), g("b", t, [])], [p("a", []), json.dumps({"id": "b", "labels": None})])
    return c


def random_cases(seed=37, count=6, items=40):
    rng = random.Random(seed)
    probs = [0.0, 0.25, 0.5, 0.3333333333, 0.6666666667, 1.0, 0.2, 0.4, 0.6, 0.75]
    cases = []
    for k in range(count):
        gold, pred = [], []
        for i in range(items):
            n = rng.randint(1, 60)
            text = "".join(rng.choice("abc de") for _ in range(n))

            def spans(many, choices):
                out = []
                for _ in range(rng.randint(0, many)):
                    a = rng.randint(0, n)
                    b = rng.randint(a, n)
                    out.append(s(a, b, rng.choice(choices), rng.choice(LABELS[:3])))
                return out
            gold.append(g(f"r{k}-{i}", text, spans(5, probs)))
            pred.append(p(f"r{k}-{i}", spans(6, probs + [round(rng.random(), 6)])))
        rng.shuffle(pred)
        cases.append({"name": f"random_{k}", "rule": "random overlapping typed spans",
                      "gold": gold, "pred": pred})
    return cases


def run_kit(scorer, case, kit):
    with tempfile.TemporaryDirectory() as tmp:
        ref, pred, out = (Path(tmp, x) for x in ("ref.jsonl", "pred.jsonl", "out.txt"))
        ref.write_text("".join(x + "\n" for x in case["gold"]), encoding="utf-8")
        pred.write_text("".join(x + "\n" for x in case["pred"]), encoding="utf-8")
        env = dict(os.environ, PYTHONHASHSEED="0")
        done = subprocess.run([sys.executable, str(scorer), str(ref), str(pred), str(out)],
                              capture_output=True, text=True, env=env, cwd=tmp)
        result = {"stdout": done.stdout,
                  "out": out.read_text(encoding="utf-8") if out.exists() else None,
                  "refused": None}
        # The temporary folder's name is not part of the result.
        result["stdout"] = done.stdout.replace(tmp + "/", "")
        if done.returncode:
            result["refused"] = done.stderr.strip().splitlines()[-1].replace(tmp + "/", "")
            return result
        refs = kit.load_jsonl_file_to_records(str(ref), do_check=False)
        preds = kit.load_jsonl_file_to_records(str(pred), is_ref=False)
    ids = {x["id"] for x in preds}
    refs = [x for x in refs if x["id"] in ids]
    result["ids"] = [x["id"] for x in preds]
    result["cor"] = [repr(float(kit.score_cor(r, q))) for r, q in zip(refs, preds)]
    result["iou"] = [repr(float(kit.score_iou(r, q))) for r, q in zip(refs, preds)]
    result["cor_lbl"] = [repr(float(kit.score_cor_lbl(r, q))) for r, q in zip(refs, preds)]
    return result


def main(argv):
    scorer = Path(argv[1]).resolve()
    spec = importlib.util.spec_from_file_location("kit_scorer", scorer)
    kit = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kit)
    cases = hand_cases() + random_cases()
    for case in cases:
        case["kit"] = run_kit(scorer, case, kit)
    doc = {"provenance": dict(KIT, generator="tests/protocols/shroom_visions/build_visions_cases.py",
                              python=sys.version.split()[0]),
           "cases": cases}
    (HERE / "cases.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n",
                                     encoding="utf-8")
    print(len(cases), "cases;", sum(c["kit"]["refused"] is not None for c in cases), "refused")


if __name__ == "__main__":
    main(sys.argv)
