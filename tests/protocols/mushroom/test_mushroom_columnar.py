"""``score_files`` (its Arrow reader) and ``score_records`` (the record reader) against
the obvious per-record reference (``_mushroom_reference``: index sets, per-character
vectors): the same ids, the same per-example IoU and Cor to the bit, the same means and
printed text, on every official data file (when ``MYCELIUM_MUSHROOM_DIR`` is set) and on
synthetic files; files the Arrow reader must not serve get the record reader's result or
error."""

import json
import math
import random

import numpy as np
import pytest

import mycelium.metrics.soft_runs as soft_runs
from pathlib import Path

from _mushroom_reference import reference_scores
from _mushroom_support import env_dir, write_lines
from mycelium.metrics.soft_spearman import cor, soft_vector
from mycelium.protocols.mushroom import (MushroomInputError, _arrow_flats, read_jsonl,
                                         score_files, score_records)

DATA_DIR, REASON = env_dir("MYCELIUM_MUSHROOM_DIR")
FILES = sorted(DATA_DIR.glob("splits/*/*/*.jsonl")) if DATA_DIR else []


def _same(a, b):
    return len(a) == len(b) and all(
        x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b))


def _bits(x):
    return np.float64(x).tobytes()


def _declined(ref, pred, rule="pandas-fast"):
    return _arrow_flats(Path(ref), Path(pred), rule) is None


def _both_paths(ref, pred):
    """Both readers under both float rules against the reference; the default rule's
    result."""
    for rule in ("exact", "pandas-fast"):
        assert not _declined(ref, pred, rule), "the Arrow reader declined a valid file"
        refs, preds = read_jsonl(ref, float_parse=rule), read_jsonl(pred, float_parse=rule)
        ids, iou, cor_, iou_mean, cor_mean = reference_scores(refs, preds)
        for got in (score_files(ref, pred, float_parse=rule),
                    score_records(refs, preds, ref_name=str(ref), pred_name=str(pred))):
            assert [str(i) for i in got.ids] == ids
            assert got.iou == iou  # exact: the same integer ratios
            assert _same(got.cor, cor_)
            assert (_bits(got.iou_mean), _bits(got.cor_mean)) == (_bits(iou_mean),
                                                                  _bits(cor_mean))
    result = score_files(ref, pred)  # pandas-fast is the default
    assert result.printed == got.printed and result.iou == got.iou
    return result


def _predictions(records, rng, fields):
    """Noisy predictions: another record's soft labels, clipped to this text and
    perturbed (probabilities, an overlapping span written last), in shuffled order."""
    out = []
    for i, r in enumerate(records):
        n = len(r["model_output_text"])
        other = records[(i * 7 + 3) % len(records)]["soft_labels"]
        soft = []
        for s in other + r["soft_labels"][:1]:
            a, b = min(s["start"], n), min(s["end"], n)
            soft.append({"start": a, "end": b, "prob": rng.choice(
                [s["prob"], round(rng.random(), 3), 0.5, 1.0])})
        if n > 4 and rng.random() < 0.3:
            soft.append({"start": 1, "end": n // 2, "prob": 0.75})
        hard = [[s["start"], s["end"]] for s in soft if s["prob"] > 0.5]
        rec = {"id": r["id"], "hard_labels": hard, "soft_labels": soft}
        out.append({k: v for k, v in rec.items() if k in fields})
    rng.shuffle(out)
    return out


@pytest.mark.skipif(DATA_DIR is None, reason=REASON or "")
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_both_readers_equal_the_reference_on_official_files(path, tmp_path):
    assert len(FILES) == 34
    records = read_jsonl(path)
    rng = random.Random(path.name)
    assert _both_paths(path, path).iou_mean == 1.0
    for fields in (("id", "hard_labels", "soft_labels"), ("id", "soft_labels"),
                   ("id", "hard_labels")):
        pred = write_lines(tmp_path / ("pred_%d.jsonl" % len(fields)),
                           [json.dumps(p, ensure_ascii=False)
                            for p in _predictions(records, rng, fields)])
        _both_paths(path, pred)


def _files(tmp_path, refs, preds):
    ref = write_lines(tmp_path / "ref.jsonl", [json.dumps(r) for r in refs])
    pred = write_lines(tmp_path / "pred.jsonl",
                       [p if isinstance(p, str) else json.dumps(p) for p in preds])
    return ref, pred


REFS = [{"id": "a", "model_output_text": "Paris is in Italy.", "hard_labels": [[12, 17]],
         "soft_labels": [{"start": 12, "end": 17, "prob": 0.6667},
                         {"start": 0, "end": 5, "prob": 0.3333}]},
        {"id": "b", "model_output_text": "The sky", "hard_labels": [],
         "soft_labels": []}]


def test_arrow_reader_serves_soft_only_overlapping_and_constant_examples(tmp_path):
    preds = [{"id": "b", "soft_labels": [{"start": 0, "end": 7, "prob": 0.2}]},
             {"id": "a", "soft_labels": [{"start": 9, "end": 12, "prob": 0.9},
                                         {"start": 0, "end": 14, "prob": 0.4},
                                         {"start": 12, "end": 12, "prob": 0.9},
                                         {"start": 12, "end": 17, "prob": 0.6}]}]
    result = _both_paths(*_files(tmp_path, REFS, preds))
    assert result.iou == [5 / 8, 1.0] and result.cor[1] == 1.0


@pytest.mark.parametrize("blocks", [(1 << 14, soft_runs.CHUNK_RUNS), (7, 40), (1, 1)])
@pytest.mark.parametrize("fields", [("id", "hard_labels", "soft_labels"), ("id", "soft_labels"),
                                    ("id", "hard_labels")])
def test_blocks_of_examples_score_as_the_reference(tmp_path, monkeypatch, blocks, fields):
    """IoU and Cor are computed a block of examples at a time, in the reference file's
    order, and put in the official order after: with blocks of one example, of a few
    and of all, files in shuffled order score as the per-record reference."""
    import mycelium.protocols.mushroom as mushroom

    monkeypatch.setattr(mushroom, "_IOU_BLOCK", blocks[0])
    monkeypatch.setattr(soft_runs, "CHUNK_RUNS", blocks[1])
    rng = random.Random(11)
    texts = ["Paris is in Italy.", "The sky", "", "x" * 40, "Nobel prize, 1850"]
    refs = []
    for k in range(60):
        text = texts[k % len(texts)]
        soft = _random_side(rng, len(text), close=k % 2 == 0)
        refs.append({"id": f"r-{rng.randint(0, 10**6)}-{k}", "model_output_text": text,
                     "hard_labels": [[x["start"], x["end"]] for x in soft if x["prob"] > 0.5],
                     "soft_labels": soft})
    rng.shuffle(refs)
    preds = _predictions(refs, rng, fields)
    _both_paths(*_files(tmp_path, refs, preds))


def test_a_prob_key_elsewhere_in_a_hard_only_file_is_no_error(tmp_path):
    """The bytes are searched for ``"prob":`` values while Arrow parses them; a value
    that is no number (in a field the scorer ignores) matters only to soft labels."""
    preds = ['{"id": "a", "hard_labels": [[12, 17]], "meta": {"prob": "n/a"}}',
             '{"id": "b", "hard_labels": [], "meta": {"prob": "n/a"}}']
    ref, pred = _files(tmp_path, REFS, preds)
    assert not _declined(ref, pred)
    assert score_files(ref, pred).iou == [1.0, 1.0]
    preds = [p.replace('"hard_labels"', '"soft_labels": [], "hard_labels"') for p in preds]
    ref, pred = _files(tmp_path, REFS, preds)
    assert _declined(ref, pred)  # the record reader decides
    assert score_files(ref, pred).iou == [1.0, 1.0]


@pytest.mark.parametrize("pred_b, message", [
    ('{"id": "b", "hard_labels": []} {"id": "c", "hard_labels": []}', "line 2: not valid JSON"),
    ('{"id": "b", "hard_labels": null}', "id 'b', field 'hard_labels': expected a list"),
    ('{"id": "b"}', "record id 'b' has no 'hard_labels' field although other records"),
    ('{"id": "b", "hard_labels": [[0, 9]]}', "id 'b', field 'hard_labels'"),
    ('{"id": "a", "hard_labels": []}', "id 'a' appears more than once"),
    ('{"id": "b", "hard_labels": [[0, 1.5]]}', "id 'b', field 'hard_labels'"),
])
def test_declined_files_get_the_record_readers_errors(tmp_path, pred_b, message):
    ref, pred = _files(tmp_path, REFS, [{"id": "a", "hard_labels": [[12, 17]]}, pred_b])
    assert _declined(ref, pred)
    with pytest.raises(MushroomInputError, match="^%s.*%s" % (pred, message)):
        score_files(ref, pred)


def test_declined_but_valid_files_score_as_the_reference(tmp_path):
    # Blank lines, integer ids, a key inside a text: the record reader decides, same
    # result.
    refs = [dict(r, id=i) for i, r in enumerate(REFS)]
    refs[1]["model_output_text"] = 'a "soft_labels" b'
    ref, pred = _files(tmp_path, refs, ['{"id": 1, "hard_labels": [[0, 2]]}', " ",
                                        '{"id": 0, "hard_labels": [[10, 17]]}'])
    assert _declined(ref, pred)
    result = score_files(ref, pred)
    assert result.ids == ["0", "1"] and result.iou == [5 / 7, 0.0]


def _random_side(rng, n, close=True):
    """Random soft spans; ``close``: among their values some closer than the float key
    of Cor's sort can tell apart (0.3 and the next double), so that it takes its exact
    fallback; without them it takes its fast path."""
    spans = []
    for _ in range(rng.randint(0, 6)):
        s = rng.randint(0, n)
        e = rng.randint(s, n)
        spans.append({"start": s, "end": e, "prob": rng.choice(
            [0.0, 1 / 3, 0.5, 1.0, 0.3, 0.30000000000000004 if close else 0.7,
             rng.random(), 1e-9, 2e-8])})
    return spans


def _flat(sides):
    offsets, s, e, p = [0], [], [], []
    for spans in sides:
        for x in spans:
            s.append(x["start"]), e.append(x["end"]), p.append(x["prob"])
        offsets.append(len(s))
    return (np.array(offsets), np.array(s, dtype=np.int64), np.array(e, dtype=np.int64),
            np.array(p, dtype=np.float64))


@pytest.mark.parametrize("exact_chars", [soft_runs.EXACT_CHARS, 20])
# 8 and 64: overlapping examples in chunks, and some written one by one as vectors
@pytest.mark.parametrize("pairs", [soft_runs._PAIRS, 64, 8])
@pytest.mark.parametrize("close", [True, False])
# 5: chunks of one or two examples; 300: some dozens
@pytest.mark.parametrize("chunk", [soft_runs.CHUNK_RUNS, 300, 5])
def test_cor_runs_is_cor_of_the_vectors_to_the_bit(monkeypatch, exact_chars, pairs, close,
                                                   chunk):
    monkeypatch.setattr(soft_runs, "EXACT_CHARS", exact_chars)
    monkeypatch.setattr(soft_runs, "_PAIRS", pairs)
    monkeypatch.setattr(soft_runs, "CHUNK_RUNS", chunk)
    rng = random.Random(7)
    lengths = [rng.choice([0, 1, 2, 3, 5, 10, 50, 300]) for _ in range(3000)]
    refs = [_random_side(rng, n, close) for n in lengths]
    preds = [_random_side(rng, n, close) for n in lengths]
    got = soft_runs.cor_runs(np.array(lengths), _flat(refs), _flat(preds), slow=cor)
    want = [cor(soft_vector(a, n, "a", 0), soft_vector(b, n, "b", 0))
            for a, b, n in zip(refs, preds, lengths)]
    assert np.array_equal(got, np.array(want), equal_nan=True)


def test_record_path_reports_the_first_bad_record_in_id_order(tmp_path):
    # The record reader converts all hard labels at once; errors still come record by
    # record: 'a' (soft past the text) before 'b' (hard past the text).
    ref, pred = _files(tmp_path, REFS, [
        {"id": "b", "hard_labels": [[0, 99]], "soft_labels": []},
        {"id": "a", "hard_labels": [[0, 2]], "soft_labels": [
            {"start": 0, "end": 40, "prob": 0.5}]}])
    with pytest.raises(MushroomInputError, match="id 'a', field 'soft_labels'"):
        score_files(ref, pred)
    ref, pred = _files(tmp_path, REFS, [
        {"id": "b", "hard_labels": [[0, 99]], "soft_labels": []},
        {"id": "a", "hard_labels": [[0, 2], [3, 4]], "soft_labels": []}])
    with pytest.raises(MushroomInputError, match=r"pred.jsonl, line 1: id 'b', field "
                                                 r"'hard_labels', span 0: end 99 is past the "
                                                 r"end of the text \(len\(text\) = 7\)"):
        score_files(ref, pred)


@pytest.mark.parametrize("field", [b"model_output_text", b"model_input"])
def test_bad_utf8_in_a_text_is_the_record_paths_error(tmp_path, field):
    ref = tmp_path / "ref.jsonl"
    ref.write_bytes(b'{"id": "a", "model_output_text": "abc", "hard_labels": [], '
                    b'"soft_labels": [], "' + field + b'": "ab\xffc"}\n')
    pred = write_lines(tmp_path / "pred.jsonl", ['{"id": "a", "hard_labels": []}'])
    assert _declined(ref, pred)
    with pytest.raises(MushroomInputError, match="line 1: not valid UTF-8"):
        score_files(ref, pred)


@pytest.mark.parametrize("ids", [
    ["b", "a", "é", "Z", "z", "日本", "😀", "a b", "ä"],           # code-point order
    ["10", "9", "-3", "0100", "2", "1_0"],                        # integer-looking: numeric
    ["10", "9", "x"],                                            # one that is not: strings
])
def test_the_arrow_reader_pairs_and_orders_ids_as_the_record_reader(tmp_path, ids):
    """Ids are paired and ordered by Arrow's kernels: the same order and pairing as the
    reference (Python's ``sorted``, ``key=int`` when every id looks like an integer),
    predictions in another order than the references."""
    rng = random.Random(len(ids))
    refs = [dict(REFS[k % 2], id=i) for k, i in enumerate(ids)]
    preds = [{"id": i, "hard_labels": [[0, 1 + k % 5]]} for k, i in enumerate(ids)]
    rng.shuffle(preds)
    result = _both_paths(*_files(tmp_path, refs, preds))
    key = int if all(i.lstrip("-").replace("_", "").isdigit() for i in ids) else None
    assert result.ids == sorted(ids, key=key)


@pytest.mark.parametrize("ref_ids, pred_ids", [(["a", "a"], ["a", "b"]),
                                               (["a", "a"], ["a", "a"]),
                                               (["b", "a", "b"], ["a", "b", "c"])])
def test_repeated_reference_ids_leave_it_to_the_record_reader(tmp_path, ref_ids, pred_ids):
    """Every reference id found among as many predictions pairs the files only when no
    reference id repeats; the record reader then names the repeated id."""
    refs = [dict(REFS[k % 2], id=i) for k, i in enumerate(ref_ids)]
    ref, pred = _files(tmp_path, refs, [{"id": i, "hard_labels": []} for i in pred_ids])
    assert _declined(ref, pred)
    with pytest.raises(MushroomInputError, match="repeated|duplicate|twice|more than once"):
        score_files(ref, pred)


@pytest.mark.parametrize("pred_ids", [["a", "b", "c"], ["a"], ["a", "a"], ["a", "c"]])
def test_ids_that_do_not_pair_leave_it_to_the_record_reader(tmp_path, pred_ids):
    ref, pred = _files(tmp_path, REFS, [{"id": i, "hard_labels": []} for i in pred_ids])
    assert _declined(ref, pred)
    with pytest.raises(MushroomInputError):
        score_files(ref, pred)
