"""Build tests/golden/fava_cases.json by running FAVA's published detection scorer.

Not part of the test suite. Run in a throwaway environment with numpy and jsonlines
(``utils.py`` imports it), the repository checked out:

    git -C <abhika-m/FAVA> show 7ec08c2dcbff016a7b6af93152994600b646f0a5:utils.py > /tmp/fava_eval/utils.py
    python tests/golden/build_fava_golden.py /tmp/fava_eval/utils.py

``utils.run_detection`` is imported unmodified and called as ``eval/run_eval.py`` calls it
(``--metric detection``): both sentence lists cut to the shorter length first. As
published it does not run on its own: it reads the names ``np``, ``error_types``,
``results_rec`` and ``results_prec``, which ``utils.py`` never defines. They are set on
the module before each call: ``np`` is numpy, ``error_types`` the list ``run_eval.py``
defines just before the call, and the two result dicts fresh for every example (their
one reading that scores each example on its own; kept across calls they would carry
the previous examples' sentences into each result). The sentence split (spaCy's
``en_core_web_sm`` in ``run_eval.py``) is given: each case lists its tagged sentences.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

REPO = "abhika-m/FAVA"
COMMIT = "7ec08c2dcbff016a7b6af93152994600b646f0a5"
PATH = "utils.py"
CALLER = "eval/run_eval.py"
OUT = Path(__file__).with_name("fava_cases.json")
ERROR_TYPES = ["<entity>", "<relation>", "<contradictory>", "<unverifiable>", "<invented>",
               "<subjective>"]  # as eval/run_eval.py lists them

E = "<entity><mark>{m}</mark><delete>{d}</delete></entity>"
CASES = [
    ("same_sentences_mixed_types",
     [f"Messi is an {E.format(m='Argentine', d='American')} player.",
      "He <relation><delete>lost</delete><mark>won</mark></relation> the cup.",
      "<invented>He owns a moon base.</invented>"],
     [f"Messi is an {E.format(m='Argentine', d='American')} player.",
      "He lost the <entity><delete>cup</delete><mark>title</mark></entity>.",
      "<invented>He owns a moon base.</invented>"]),
    # The prediction splits the first sentence in two: every later sentence is compared
    # with the wrong one, and the last reference sentence is cut.
    ("prediction_splits_a_sentence",
     ["Paris is big; <subjective>it is lovely</subjective>.",
      "It has <entity><delete>5</delete><mark>2</mark></entity> million people.",
      "<unverifiable>Its mayor likes jazz.</unverifiable>"],
     ["Paris is big;", "<subjective>it is lovely</subjective>.",
      "It has <entity><delete>5</delete><mark>2</mark></entity> million people.",
      "<unverifiable>Its mayor likes jazz.</unverifiable>"]),
    ("prediction_has_fewer_sentences",
     ["<contradictory><delete>The sky is green.</delete></contradictory>",
      "Grass is <entity><delete>blue</delete><mark>green</mark></entity>."],
     ["<contradictory><delete>The sky is green.</delete></contradictory>"]),
    ("no_errors_anywhere", ["All is well.", "Nothing to see."],
     ["All is well.", "Nothing to see."]),
    ("types_on_one_side_only",
     ["A <relation><delete>b</delete></relation> c.", "D e f."],
     ["A b c.", "D <invented>e</invented> f."]),
    ("two_spans_of_a_type_in_one_sentence",
     [f"{E.format(m='X', d='A')} and {E.format(m='Y', d='B')}.", "Then C."],
     [f"{E.format(m='X', d='A')} and B.", f"Then {E.format(m='Z', d='C')}."]),
    # An error that only inserts text (no deleted words): zero-length in the original.
    ("insertion_only_error",
     ["He was born<entity><mark> in 1990</mark></entity>.", "He plays."],
     ["He was born<entity><mark> in 1987</mark></entity>.", "He plays."]),
    # "<sentence>" (a name the released annotations are read with elsewhere) is not one
    # of the six types run_detection looks for.
    ("unscored_tag_name",
     ["<sentence><delete>Cats bark.</delete></sentence>", "Dogs bark."],
     ["<sentence><delete>Cats bark.</delete></sentence>", "Dogs bark."]),
]


def main(utils_path: str) -> None:
    spec = importlib.util.spec_from_file_location("fava_utils", utils_path)
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    utils.np, utils.error_types = np, ERROR_TYPES
    out = []
    for name, gold, pred in CASES:
        utils.results_rec, utils.results_prec = {}, {}
        n = min(len(pred), len(gold))  # eval/run_eval.py: sentences = min(...)
        inputs = [{"annotated": " ".join(gold)}]
        res = utils.run_detection(gold[0:n], pred[0:n], inputs, 0)[0]
        out.append({"name": name, "gold_sentences": gold, "pred_sentences": pred,
                    "per_error_prec": {k: float(v) for k, v in res["per_error_prec"].items()},
                    "per_error_rec": {k: float(v) for k, v in res["per_error_rec"].items()},
                    "overall_prec": float(res["overall_prec"]),
                    "overall_rec": float(res["overall_rec"])})
    OUT.write_text(json.dumps({
        "provenance": {
            "repository": REPO, "commit": COMMIT, "path": PATH, "function": "run_detection",
            "caller": f"{CALLER} (--metric detection): cut both lists to the shorter",
            "command": "python tests/golden/build_fava_golden.py /tmp/fava_eval/utils.py",
            "environment": {"numpy": np.__version__, "python": sys.version.split()[0]},
            "undefined_names_set": "np=numpy, error_types=run_eval.py's list, "
                                   "results_rec/results_prec fresh per example",
        },
        "schema": "gold_sentences / pred_sentences: the tagged sentences of each side "
                  "(the texts are the sentences joined by one space); outputs as "
                  "run_detection writes them (types keyed with their tag, -1 for an "
                  "overall value without any type).",
        "cases": out,
    }, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
