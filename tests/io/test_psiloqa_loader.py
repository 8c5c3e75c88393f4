"""`mycelium.read_psiloqa` on small records in PsiloQA's published format (the Hugging
Face dataset s-nlp/PsiloQA: Parquet split files; JSON lines of the same records)."""

import hashlib
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import mycelium

RECORD = {"id": "ru-17", "lang": "ru", "question": "Где Париж?", "wiki_title": "Париж",
          "wiki_url": "https://ru.wikipedia.org/wiki/Париж", "wiki_passage": "Париж — …",
          "golden_answer": "Во Франции.", "llm_answer": "Париж находится в Германии.",
          "llm_checkpoint": "Qwen/Qwen2.5-7B-Instruct",
          "annotated_span": "Париж находится в [HAL]Германии[/HAL].",
          "labels": [[18, 26]]}


def _jsonl(tmp_path, records, name="validation-00000-of-00001.jsonl"):
    p = tmp_path / name
    p.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False))
                         + "\n" for r in records), encoding="utf-8")
    return p


def test_published_record_in_jsonl_and_parquet_read_the_same(tmp_path):
    j = _jsonl(tmp_path, [RECORD])
    p = tmp_path / "test-00000-of-00001.parquet"
    pq.write_table(pa.Table.from_pylist([RECORD]), p)
    df = mycelium.read_psiloqa([j, p])
    assert df["split"].tolist() == ["validation", "test"]
    assert df["labels"].tolist() == [[{"start": 18, "end": 26}]] * 2
    assert df["hal_labels"].tolist() == [[{"start": 18, "end": 26}]] * 2
    assert RECORD["llm_answer"][18:26] == "Германии"
    assert df.loc[1, "llm_checkpoint"] == "Qwen/Qwen2.5-7B-Instruct"
    assert str(df["labels"].dtype).startswith("list<item: struct<start: int64")
    assert mycelium.read_psiloqa(tmp_path)["id"].tolist() == ["ru-17", "ru-17"]


def test_hal_labels_follow_the_evaluators_find_rule(tmp_path):
    rec = {**RECORD, "llm_answer": "a b a b", "annotated_span": "a b [HAL]a[/HAL] [HAL]b[/HAL]",
           "labels": [[4, 5], [6, 7]]}
    df = mycelium.read_psiloqa(_jsonl(tmp_path, [rec]))
    assert df.loc[0, "labels"] == [{"start": 4, "end": 5}, {"start": 6, "end": 7}]
    assert df.loc[0, "hal_labels"] == [{"start": 0, "end": 1}, {"start": 2, "end": 3}]


def test_unplaced_chunk_is_an_error_or_dropped_and_counted(tmp_path):
    rec = {**RECORD, "annotated_span": "Париж находится в [HAL]Берлине[/HAL]."}
    path = _jsonl(tmp_path, [RECORD, rec])
    with pytest.raises(mycelium.SpanValidationError,
                       match=rf"{path}:2: field 'annotated_span', span 0: Expected every "
                             r"\[HAL\] chunk in llm_answer, got 'Берлине' \(chunk 0\)"):
        mycelium.read_psiloqa(path)
    df = mycelium.read_psiloqa(path, unplaced="drop")
    assert df.loc[1, "hal_labels"] == [] and df.attrs["psiloqa_unplaced"] == 1


@pytest.mark.parametrize("bad, message", [
    ('{"id": 1, "llm_answer": "x", "labels": [', r":2: not valid JSON"),
    ({"id": "a", "labels": []}, r":2: field 'llm_answer': is missing; expected a string"),
    ({"id": "a", "llm_answer": 7, "labels": []}, r":2: field 'llm_answer': expected a string"),
    ({"id": "a", "llm_answer": "abc", "labels": [[0, 9]]},
     r":2: field 'labels', span 0: end 9 is past the end of the text \(length 3\)"),
    ({"id": "a", "llm_answer": "abc", "labels": [[2, 1]]},
     r":2: field 'labels', span 0: \[2, 1\) is not a span"),
    ({"id": "a", "llm_answer": "abc", "labels": "[[0, 1]]"},
     r":2: field 'labels': expected a list of spans, got str"),
    ({"id": "a", "llm_answer": "abc", "labels": [[0, 1.5]]},
     r":2: field 'labels', span 0: end 1.5 is not an integral number"),
    ({"id": "a", "llm_answer": "abc"},
     r":2: field 'labels': is missing and so is annotated_span"),
    ({"id": "a", "llm_answer": "abc", "labels": [], "annotated_span": "[HAL]abc"},
     r":2: field 'annotated_span': Expected every tag closed, got \[HAL\] still open"),
])
def test_malformed_records_name_file_line_and_field(tmp_path, bad, message):
    path = _jsonl(tmp_path, [RECORD, bad])
    with pytest.raises(ValueError, match=str(path).replace("\\", r"\\") + message):
        mycelium.read_psiloqa(path)


def test_parquet_errors_name_the_row(tmp_path):
    p = tmp_path / "train-00000-of-00001.parquet"
    pq.write_table(pa.Table.from_pylist([RECORD, {**RECORD, "labels": [[0, 99]]}]), p)
    with pytest.raises(mycelium.SpanValidationError,
                       match=r"train-00000-of-00001.parquet:2: field 'labels', span 0: end "
                             r"99 is past the end"):
        mycelium.read_psiloqa(p)


def test_missing_paths_and_options(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist; expected a PsiloQA .parquet or .jsonl file"):
        mycelium.read_psiloqa(tmp_path / "nope.parquet")
    with pytest.raises(FileNotFoundError, match=r"No \*.parquet or \*.jsonl files"):
        mycelium.read_psiloqa(tmp_path)
    with pytest.raises(ValueError, match=r"Expected unplaced one of 'error', 'drop'"):
        mycelium.read_psiloqa(tmp_path, unplaced="skip")


def test_the_loaded_files_are_in_the_signature(tmp_path):
    path = _jsonl(tmp_path, [RECORD])
    df = mycelium.read_psiloqa(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert mycelium.dataset_of(df).sha256 == digest
    sig = mycelium.evaluate(df["labels"], df["labels"], text=df["llm_answer"])["meta"]["signature"]
    got = mycelium.parse_signature(sig)["dataset"]
    assert (got["name"], got["sha256"], got["files"]) == ("psiloqa", digest[:12], [path.name])
