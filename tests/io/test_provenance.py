"""Dataset provenance: loaders record their files' names and SHA-256, and every result
scored from the frame carries ``dataset:<name>@sha256:<12 hex>`` in its signature."""

import hashlib
import json

import pytest

import mycelium
from mycelium.core.provenance import Dataset
from mycelium.core.signature import signature_with
from mycelium.io.provenance import attach_dataset, dataset_provenance

RESPONSE = "The bridge opened in 1932 and was painted green in 1990."
RECORD = {"id": "7", "source_id": "s1", "model": "gpt-4-0613", "temperature": 0.7,
          "labels": [{"start": 21, "end": 25, "text": "1932", "label_type": "Evident Conflict"}],
          "split": "test", "quality": "good", "response": RESPONSE}


def _ragtruth(tmp_path, record=RECORD, name="response.jsonl"):
    path = tmp_path / name
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


def test_read_ragtruth_records_the_file_and_its_sha256(tmp_path):
    path = _ragtruth(tmp_path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    df = mycelium.read_ragtruth(path)
    assert df.attrs["mycelium_dataset"] == {
        "name": "ragtruth", "sha256": digest, "tag": f"ragtruth@sha256:{digest[:12]}",
        "files": [{"name": "response.jsonl", "sha256": digest}]}
    report = mycelium.evaluate(df["labels"], df["labels"], metrics="character")
    assert report["meta"]["dataset"] == f"ragtruth@sha256:{digest[:12]}"
    fields = report["meta"]["signature"].split("|")
    assert fields[-2:] == [f"dataset:ragtruth@sha256:{digest[:12]}",
                           "dataset_files:response.jsonl"]
    parsed = mycelium.parse_signature(report["meta"]["signature"])
    assert parsed["dataset"] == {"name": "ragtruth", "sha256": digest[:12],
                                 "files": ["response.jsonl"]}
    assert parsed["metrics"] == ["character"]


def test_a_relabelled_release_has_another_hash(tmp_path):
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old = mycelium.read_ragtruth(_ragtruth(tmp_path / "old"))
    relabelled = dict(RECORD, labels=[dict(RECORD["labels"][0], implicit_true=True)])
    new = mycelium.read_ragtruth(_ragtruth(tmp_path / "new", relabelled))
    assert old.attrs["mycelium_dataset"]["tag"] != new.attrs["mycelium_dataset"]["tag"]


def test_two_files_hash_independent_of_order(tmp_path):
    response = _ragtruth(tmp_path)
    sources = tmp_path / "source_info.jsonl"
    sources.write_text(json.dumps({"source_id": "s1", "task_type": "QA"}) + "\n")
    df = mycelium.read_ragtruth(response, sources)
    info = df.attrs["mycelium_dataset"]
    digests = sorted(hashlib.sha256(p.read_bytes()).hexdigest() for p in (response, sources))
    want = hashlib.sha256("".join(d + "\n" for d in digests).encode()).hexdigest()
    assert info["sha256"] == want
    assert [f["name"] for f in info["files"]] == ["response.jsonl", "source_info.jsonl"]
    assert dataset_provenance("ragtruth", [sources, response]).sha256 == want


def test_frame_faces_carry_the_dataset(tmp_path):
    df = mycelium.read_ragtruth(_ragtruth(tmp_path))
    tag = df.attrs["mycelium_dataset"]["tag"]
    tidy = df.mycelium.evaluate("labels", "labels", text="response", by="model",
                                metrics=["iou"])
    assert f"|dataset:{tag}|dataset_files:response.jsonl" in tidy.attrs["mycelium_signature"]
    per_row = df.mycelium.score("labels", "labels", metrics=["iou"])
    assert per_row.attrs["mycelium_signature"].endswith(
        f"|dataset:{tag}|dataset_files:response.jsonl")
    scored = df.mycelium.evaluate("labels", "labels", metrics=["response_level"])
    assert scored.attrs["mycelium_signature"].endswith("dataset_files:response.jsonl")


def test_provenance_survives_parquet(tmp_path):
    df = mycelium.read_ragtruth(_ragtruth(tmp_path))
    mycelium.write_parquet(df, tmp_path / "rt.parquet")
    back = mycelium.read_parquet(tmp_path / "rt.parquet")
    assert back.attrs["mycelium_dataset"] == df.attrs["mycelium_dataset"]
    sig = mycelium.evaluate(back["labels"], back["labels"], metrics="iou")["meta"]["signature"]
    assert mycelium.parse_signature(sig)["dataset"]["name"] == "ragtruth"


def test_read_mushroom_records_every_file(tmp_path):
    rec = {"id": "val-en-1", "lang": "EN", "model_output_text": "Paris is in Germany.",
           "hard_labels": [[12, 19]], "soft_labels": [{"start": 12, "end": 19, "prob": 1.0}]}
    for lang in ("en", "de"):
        (tmp_path / f"mushroom.{lang}-val.v2.jsonl").write_text(
            json.dumps(dict(rec, id=f"val-{lang}-1")) + "\n")
    df = mycelium.read_mushroom(tmp_path)
    info = df.attrs["mycelium_dataset"]
    assert info["name"] == "mu_shroom"
    assert [f["name"] for f in info["files"]] == ["mushroom.de-val.v2.jsonl",
                                                  "mushroom.en-val.v2.jsonl"]
    report = mycelium.evaluate(df["hard_labels"], df["hard_labels"], metrics="iou")
    assert report["meta"]["signature"].endswith(
        "|dataset_files:mushroom.de-val.v2.jsonl,mushroom.en-val.v2.jsonl")


def test_plain_inputs_have_no_dataset_field():
    report = mycelium.evaluate([[0, 3]], [[0, 2]], metrics="iou")
    assert "dataset" not in report["meta"]
    assert "dataset" not in report["meta"]["signature"]
    assert "dataset" not in mycelium.parse_signature(report["meta"]["signature"])


def test_file_names_with_separators_round_trip(tmp_path):
    import pandas as pd

    path = tmp_path / "a|b,c%.jsonl"
    path.write_bytes(b"{}\n")
    df = attach_dataset(pd.DataFrame({"ref": [[[0, 3]]], "pred": [[[0, 2]]]}), "toy", [path])
    sig = df.mycelium.evaluate("ref", "pred", metrics="iou").attrs["mycelium_signature"]
    assert sig.split("|")[-1] == "dataset_files:a%7Cb%2Cc%25.jsonl"
    assert mycelium.parse_signature(sig)["dataset"]["files"] == ["a|b,c%.jsonl"]


def test_signature_keeps_one_dataset_field():
    d = Dataset("toy", ("x.jsonl",), "0" * 64, ("0" * 64,))
    once = signature_with("mycelium:0.1.0|profile:none", dataset=d)
    assert signature_with(once, dataset=d) == once


@pytest.mark.parametrize("kwargs, match", [
    (dict(name="a|b", files=(), sha256="0" * 64), "dataset name"),
    (dict(name="toy", files=(), sha256="abc"), "64 lower-case hex"),
])
def test_bad_dataset_values_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Dataset(**kwargs)


def test_no_paths_is_an_error():
    with pytest.raises(ValueError, match="Expected at least one file"):
        dataset_provenance("toy", [None])
