"""`mycelium.integrations.transformers.compute_metrics_for` against `mycelium.evaluate` on
the same data, without torch: a WordPiece tokenizer trained here with ``tokenizers`` (no
download) gives the offsets, padding and special tokens of a real fast tokenizer, the
``EvalPrediction`` is built from numpy arrays the way ``Trainer`` builds it (batches of
different lengths padded with -100 and concatenated), and the expected numbers come from
a slow, obvious reading of the same arrays handed to `mycelium.evaluate`."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mycelium
from _optional import optional
from mycelium.errors import SpanValidationError
from mycelium.integrations.transformers import compute_metrics_for

transformers = optional("transformers", "transformers")
tokenizers = optional("tokenizers", "transformers")

CORPUS = [
    "The Eiffel Tower is in Berlin and was finished in 1899.",
    "Water boils at 100 degrees Celsius at sea level.",
    "Zürich liegt in Österreich, sagt das Modell.",
    "Mount Everest is the second highest mountain on Earth.",
    "The Moon orbits the Sun once every twenty days.",
    "Shakespeare wrote Don Quixote in the year 1605.",
    "Paris is the capital of France; Rome is in Spain.",
    "Honey never spoils if it is stored well.",
]
#: The hallucinated phrases of each text, as reference spans.
PHRASES = [["Berlin", "1899"], [], ["Österreich"], ["second"], ["Sun", "twenty days"],
           ["Don Quixote"], ["Spain"], []]
REFS = [[[t.index(p), t.index(p) + len(p)] for p in ps] for t, ps in zip(CORPUS, PHRASES)]


@pytest.fixture(scope="module")
def tokenizer():
    """A fast tokenizer trained on the corpus: lower-casing WordPiece, [CLS] ... [SEP]."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(CORPUS * 3, trainers.WordPieceTrainer(
        vocab_size=120, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"]))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]",
        sep_token="[SEP]")


def hf_labels(offsets, refs):
    """Token labels as LettuceDetect's training data has them: -100 for special tokens,
    1 for a token overlapping a reference span (half-open test), else 0."""
    out = []
    for s, e in offsets:
        if s == e:
            out.append(-100)
        else:
            out.append(int(any(e > a and s < b for a, b in refs)))
    return out


def trainer_eval(tokenizer, texts, refs, *, n_labels, seed, batch=3):
    """(offsets per example, EvalPrediction): per batch of ``batch`` texts the tokenizer
    pads to the longest, the model's logits are drawn (float32, higher for the positive
    label on hallucinated tokens), and the batches are padded with
    -100 and concatenated as Trainer's evaluation loop does (``nested_concat``)."""
    rng = np.random.default_rng(seed)
    offsets = tokenizer(texts, return_offsets_mapping=True)["offset_mapping"]
    logits, labels = [], []
    for first in range(0, len(texts), batch):
        enc = tokenizer(texts[first:first + batch], return_offsets_mapping=True,
                        padding=True)
        width = len(enc["input_ids"][0])
        lab = [hf_labels(o, r) for o, r in zip(enc["offset_mapping"],
                                                refs[first:first + batch])]
        lab = [[-100 if m == 0 else v for v, m in zip(row, mask)]
               for row, mask in zip(lab, enc["attention_mask"])]
        x = rng.normal(0.0, 2.0, (len(lab), width, n_labels))
        x[..., n_labels - 1] += 3.0 * (np.array(lab) == 1)  # a detector that is often right
        logits.append(x.astype(np.float32))
        labels.append(np.array(lab))
    width = max(x.shape[1] for x in logits)
    pad = [np.pad(x, ((0, 0), (0, width - x.shape[1]), (0, 0)), constant_values=-100)
           for x in logits]
    lab = [np.pad(x, ((0, 0), (0, width - x.shape[1])), constant_values=-100) for x in labels]
    return offsets, transformers.EvalPrediction(predictions=np.concatenate(pad),
                                                label_ids=np.concatenate(lab))


def softmax_rows(x):
    """A slow softmax, row by row in Python floats (the reference of the module's)."""
    out = []
    for row in np.asarray(x, dtype=np.float64).tolist():
        m = max(row)
        e = [math.exp(v - m) for v in row]
        out.append([v / sum(e) for v in e])
    return out


def reference_scores(offsets, eval_pred, *, positives, probabilities):
    """Per example the scored tokens' offsets and scores, read one token at a time."""
    offs, scores = [], []
    for k, row in enumerate(offsets):
        o, s = [], []
        for j, (a, b) in enumerate(row):
            if a == b or eval_pred.label_ids[k][j] == -100:
                continue
            values = eval_pred.predictions[k][j]
            p = [float(v) for v in values] if probabilities else softmax_rows([values])[0]
            o.append((a, b))
            s.append(min(1.0, sum(p[i] for i in positives)))
        offs.append(o)
        scores.append(s)
    return offs, scores


def flat(report):
    return {f"{m}_{k}": v for m, ms in report.items() if m != "meta" for k, v in ms.items()}


def same(a, b):
    return a == b or (math.isnan(a) and math.isnan(b))


CASES = [(scheme, outputs, mode) for scheme in ("binary", "bio")
         for outputs in ("logits", "probabilities") for mode in ("free", "fixed", "tuned")]


@pytest.mark.parametrize("scheme, outputs, mode", CASES)
@pytest.mark.parametrize("profile", [None, "ragtruth"])
def test_compute_metrics_equals_evaluate(tokenizer, scheme, outputs, mode, profile):
    n_labels = 2 if scheme == "binary" else 3
    positives = [1] if scheme == "binary" else [1, 2]
    offsets, eval_pred = trainer_eval(tokenizer, CORPUS, REFS, n_labels=n_labels, seed=3)
    if outputs == "probabilities":
        probs = np.array([softmax_rows(r) for r in eval_pred.predictions], np.float32)
        probs[eval_pred.label_ids == -100] = -100.0  # Trainer's padding stays -100
        eval_pred = transformers.EvalPrediction(predictions=probs,
                                                label_ids=eval_pred.label_ids)
    threshold = 0.5 if mode == "fixed" else None
    compute = compute_metrics_for(CORPUS, offsets, REFS, scheme=scheme, profile=profile,
                                  threshold=threshold, tune=mode == "tuned")
    got = compute(eval_pred)

    ref_offsets, ref_scores = reference_scores(offsets, eval_pred, positives=positives,
                                               probabilities=outputs == "probabilities")
    scores = dict(text=CORPUS, token_offsets=ref_offsets, token_scores=ref_scores,
                  profile=profile)
    if mode == "tuned":
        best = mycelium.scores.tune_threshold(REFS, **scores)
        threshold = best["threshold"]
        assert got.pop("threshold") == pytest.approx(float(threshold), abs=1e-12)
    want = flat(mycelium.evaluate(REFS, **scores, threshold=threshold))
    assert got.keys() == want.keys()
    assert all(same(got[k], want[k]) for k in want), (got, want)
    if mode == "free":
        assert set(got) == {"char_auroc_score", "char_ap_score", "response_auroc_score"}
    else:
        assert {"iou_score", "character_f1", "response_level_f1"} <= set(got)
    # the whole report is evaluate's, signature included
    report = compute.report(eval_pred)
    assert report["meta"]["scores"] == "token"
    assert ("tuned:iou" in report["meta"]["signature"]) == (mode == "tuned")


def test_a_pair_input_scores_the_answer_only(tokenizer):
    """Context + answer, as LettuceDetect feeds them: the context's tokens are labelled
    -100 and their offsets (into the context) are never read against the answer."""
    contexts = ["The tower was finished in 1889 in Paris.", "Water boils at 100 degrees."]
    answers = ["The Eiffel Tower is in Berlin and was finished in 1899.",
               "Water boils at 100 degrees Celsius at sea level."]
    refs = [[[23, 29], [50, 54]], []]
    enc = tokenizer(contexts, answers, return_offsets_mapping=True, padding=True)
    labels = []
    for k in range(2):
        seq = enc.sequence_ids(k)
        row = hf_labels(enc["offset_mapping"][k], refs[k])
        labels.append([v if seq[j] == 1 else -100 for j, v in enumerate(row)])
    rng = np.random.default_rng(11)
    logits = rng.normal(0, 2, (2, len(labels[0]), 2))
    pred = transformers.EvalPrediction(predictions=logits, label_ids=np.array(labels))
    got = compute_metrics_for(answers, enc["offset_mapping"], refs, threshold=0.5)(pred)
    offs = [[o for o, lab in zip(enc["offset_mapping"][k], labels[k]) if lab != -100]
            for k in range(2)]
    sc = [[softmax_rows([logits[k][j]])[0][1] for j in range(len(labels[k]))
           if labels[k][j] != -100] for k in range(2)]
    want = flat(mycelium.evaluate(refs, text=answers, token_offsets=offs, token_scores=sc,
                                  threshold=0.5))
    assert got == want
    # the context's tokens do point past the answers: without their -100 they are refused
    no_labels = transformers.EvalPrediction(predictions=logits, label_ids=None)
    with pytest.raises(SpanValidationError, match="offset_mapping example 0, token .*: "
                                                  "Expected a token within the text"):
        compute_metrics_for(["short", "texts"], enc["offset_mapping"], refs)(no_labels)


def test_ignored_positions_do_not_count(tokenizer):
    """Values at special tokens, padding and -100 labels change nothing."""
    offsets, pred = trainer_eval(tokenizer, CORPUS, REFS, n_labels=2, seed=5)
    compute = compute_metrics_for(CORPUS, offsets, REFS, threshold=0.4)
    before = compute(pred)
    noisy = pred.predictions.copy()
    noisy[pred.label_ids == -100] = np.random.default_rng(0).normal(
        0, 9, noisy[pred.label_ids == -100].shape)
    assert compute((noisy, pred.label_ids)) == before  # a plain pair works too
    # a model returning (logits, hidden states): the logits come first
    assert compute(((pred.predictions, np.zeros(3)), pred.label_ids)) == before


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_any_padding_and_labels_give_the_slow_reading(data):
    """Random offset mappings (special tokens, ragged lengths), random -100 labels and a
    prediction axis wider than any example: probabilities are read exactly."""
    n = data.draw(st.integers(1, 5))
    texts, offsets, refs = [], [], []
    for _ in range(n):
        size = data.draw(st.integers(0, 20))
        cuts = sorted(set(data.draw(st.lists(st.integers(0, size), max_size=6)) + [0, size]))
        toks = [(0, 0)] + list(zip(cuts, cuts[1:])) + [(0, 0)]
        texts.append("y" * size)
        offsets.append(toks)
        spans = data.draw(st.lists(st.tuples(st.integers(0, size), st.integers(0, size)),
                                   max_size=2))
        refs.append([[min(a, b), max(a, b)] for a, b in spans])
    width = max(map(len, offsets)) + data.draw(st.integers(0, 3))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    grid = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=(n, width))
    probs = np.stack([1.0 - grid, grid], axis=2)
    labels = np.where(rng.random((n, width)) < 0.2, -100, 1)
    for k in range(n):
        labels[k, len(offsets[k]):] = -100  # Trainer pads labels past the tokens with -100
    pred = (probs, labels)
    got = compute_metrics_for(texts, offsets, refs, threshold=0.5, average="micro")(pred)
    offs, sc = [], []
    for k in range(n):
        keep = [j for j, (a, b) in enumerate(offsets[k]) if a < b and labels[k][j] != -100]
        offs.append([offsets[k][j] for j in keep])
        sc.append([float(grid[k][j]) for j in keep])
    want = flat(mycelium.evaluate(refs, text=texts, token_offsets=offs, token_scores=sc,
                                  threshold=0.5, average="micro"))
    assert got.keys() == want.keys()
    assert all(same(got[k], want[k]) for k in want)


def test_probabilities_of_the_positive_label_alone():
    """Predictions of shape (examples, tokens): the positive probability per token (what
    a preprocess_logits_for_metrics keeping one column gives)."""
    texts = ["abcdef"]
    offsets = [[(0, 0), (0, 2), (2, 4), (4, 6)]]
    got = compute_metrics_for(texts, offsets, [[[2, 4]]], metrics=["char_auroc", "iou"],
                              threshold=0.5)((np.array([[0.0, 0.1, 0.9, 0.2]]), None))
    assert got == {"iou_score": 1.0, "char_auroc_score": 1.0}
    logits = compute_metrics_for(texts, offsets, [[[2, 4]]], outputs="logits",
                                 metrics=["iou"], threshold=0.5)
    assert logits((np.array([[0.0, -3.0, 2.0, -1.0]]), None)) == {"iou_score": 1.0}


def test_bio_scores_are_p_b_plus_p_i():
    texts = ["abcdef"]
    offsets = [[(0, 2), (2, 4), (4, 6)]]
    probs = np.array([[[0.9, 0.05, 0.05], [0.2, 0.5, 0.3], [0.5, 0.1, 0.4]]])
    compute = compute_metrics_for(texts, offsets, [[[2, 4]]], scheme="bio",
                                  metrics=["iou"], threshold=0.45)
    assert compute((probs, None)) == {"iou_score": 0.5}  # tokens 1 (0.8), 2 (0.5)
    typed = compute_metrics_for(texts, offsets, [[[2, 4]]], scheme="bio",
                                positive_label=[1], metrics=["iou"], threshold=0.45)
    assert typed((probs, None)) == {"iou_score": 1.0}  # token 1 only (P(B) = 0.5)


def test_bad_inputs_say_what_and_how():
    texts, offsets = ["abcd"], [[(0, 2), (2, 4)]]
    compute = compute_metrics_for(texts, offsets, [[[0, 2]]])
    with pytest.raises(ValueError, match="Expected predictions for the 1 examples"):
        compute((np.zeros((2, 2, 2)), None))
    with pytest.raises(ValueError, match="got 1 positions, at example 0, token 1"):
        compute((np.zeros((1, 1, 2)), None))
    with pytest.raises(ValueError, match="Expected label_ids of shape"):
        compute((np.zeros((1, 2, 2)), np.zeros((1, 3))))
    with pytest.raises(ValueError, match="Expected finite predictions"):
        compute((np.full((1, 2, 2), np.nan), None))
    with pytest.raises(ValueError, match="Expected scheme='binary' with two labels, got 3"):
        compute((np.zeros((1, 2, 3)), None))
    with pytest.raises(ValueError, match="Expected probabilities in \\[0, 1\\]"):
        compute((np.array([[0.5, 1.5]]), None))
    with pytest.raises(TypeError, match="Expected an EvalPrediction"):
        compute(np.zeros((1, 2, 2)))
    with pytest.raises(ValueError, match="Expected threshold or tune, got both"):
        compute_metrics_for(texts, offsets, [[[0, 2]]], threshold=0.5, tune=True)
    with pytest.raises(ValueError, match="Expected tune=True or a span metric"):
        compute_metrics_for(texts, offsets, [[[0, 2]]], tune="char_auroc")
    with pytest.raises(ValueError, match="Expected scheme one of binary, bio"):
        compute_metrics_for(texts, offsets, [[[0, 2]]], scheme="bioes")
    with pytest.raises(ValueError, match="Expected one positive_label with scheme='binary'"):
        compute_metrics_for(texts, offsets, [[[0, 2]]], positive_label=[1, 2])
    with pytest.raises(ValueError, match="Expected one offset mapping per text"):
        compute_metrics_for(texts, offsets * 2, [[[0, 2]]])
    with pytest.raises(SpanValidationError, match="offset_mapping example 0, token 1: "
                                                  "Expected 0 <= start <= end"):
        compute_metrics_for(texts, [[(0, 2), (3, 2)]], [[[0, 2]]])


def test_labelled_positions_past_a_short_offset_mapping_raise():
    # The docstring's example with the first text's offsets cut short by two tokens:
    # "Peru" (position 4, labelled 1) is then past the offsets but still labelled. It
    # was skipped (IoU 0.0, AUROC 0.15); it must be reported with the lengths.
    texts = ["Paris is in Peru.", "Water is wet."]
    offsets = [[(0, 0), (0, 5), (6, 8), (9, 11)],
               [(0, 0), (0, 5), (6, 8), (9, 12), (12, 13), (0, 0), (0, 0)]]
    logits = np.zeros((2, 7, 2))
    logits[0, 4, 1] = logits[1, 2, 1] = 3.0
    labels = np.array([[-100, 0, 0, 0, 1, 0, -100], [-100, 0, 0, 0, 0, -100, -100]])
    compute = compute_metrics_for(texts, offsets, [[[12, 16]], []], threshold=0.5,
                                  metrics=["iou", "char_auroc"])
    with pytest.raises(ValueError) as info:
        compute((logits, labels))
    message = str(info.value)
    for fragment in ("example 0", "4 token", "7 positions", "position 4", "label 1"):
        assert fragment in message, (fragment, message)
    # padding labelled -100 past the offsets stays ignored
    labels[0, 4:] = -100
    assert compute((logits, labels))["iou_score"] == 0.0  # "Peru" is no longer scored
