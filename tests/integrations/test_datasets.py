"""A Hugging Face ``datasets.Dataset`` goes into `mycelium.evaluate`, `mycelium.Accumulator`
and `compute_metrics_for` through its Arrow table: its columns (``ds["spans"]``) are read
as the Arrow arrays they are — row order after shuffle / select / filter included — and
give exactly the numbers of the same data as Python lists. A column that would be read
row by row in Python is caught: the test makes that an error."""

from __future__ import annotations

import numpy as np
import pytest

import mycelium
from _optional import optional
from _reports import same
from mycelium.core.arrow_sources import arrow_source

datasets = optional("datasets", "datasets")

TEXTS = ["Paris is in Peru.", "Water is wet.", "", "Zürich liegt in Österreich.",
         "The sky is green today.", "Rome is in Spain, said nobody."]
REFS = [[[12, 16]], [], [], [[16, 26]], [[11, 16]], [[11, 16], [23, 29]]]
PREDS = [[[12, 17]], [[0, 5]], [], [[16, 26]], [], [[11, 16]]]
OFFSETS = [[[0, 5], [6, 8], [9, 11], [12, 16], [16, 17]], [[0, 5], [6, 8], [9, 12]], [],
           [[0, 6], [7, 12], [13, 15], [16, 26], [26, 27]],
           [[0, 3], [4, 7], [8, 10], [11, 16], [17, 22], [22, 23]],
           [[0, 4], [5, 7], [8, 10], [11, 16], [16, 17], [18, 22], [23, 29], [29, 30]]]
SCORES = [[0.1, 0.0, 0.2, 0.9, 0.4], [0.7, 0.1, 0.3], [], [0.0, 0.2, 0.1, 0.8, 0.0],
          [0.0, 0.3, 0.1, 0.6, 0.6, 0.0], [0.5, 0.0, 0.2, 0.95, 0.1, 0.3, 0.5, 0.0]]


def as_dicts(sets):
    return [[{"start": s, "end": e} for s, e in spans] for spans in sets]


@pytest.fixture()
def ds():
    return datasets.Dataset.from_dict({
        "text": TEXTS, "ref": as_dicts(REFS), "pred": as_dicts(PREDS),
        "offsets": OFFSETS, "scores": SCORES, "lang": ["fr", "en", "en", "de", "en", "it"]})


@pytest.fixture()
def no_python_rows(monkeypatch):
    """Reading a datasets column row by row (its Sequence interface) fails the test."""
    column = datasets.arrow_dataset.Column

    def refuse(self, *args, **kwargs):
        raise AssertionError(f"column {self.column_name!r} was read in Python")

    def getitem(self, key):
        if isinstance(key, str):  # a nested column: a new Column, nothing read
            return column(self, key)
        refuse(self)

    monkeypatch.setattr(column, "__iter__", refuse)
    monkeypatch.setattr(column, "__getitem__", getitem)


def rows(ds, name):
    """The column's values in the dataset's row order, read through Python (the truth)."""
    return ds.with_format(None).to_dict()[name]


def test_columns_are_read_as_arrow(ds, no_python_rows):
    col = arrow_source(ds["ref"])
    assert col.type == datasets.Dataset.from_dict({"r": as_dicts(REFS)}).data.table[
        "r"].type
    got = mycelium.evaluate(ds["ref"], ds["pred"], text=ds["text"], profile="ragtruth")
    assert same(got, mycelium.evaluate(REFS, PREDS, text=TEXTS, profile="ragtruth"))


def test_scores_and_thresholds_from_a_dataset(ds, no_python_rows):
    kwargs = dict(metrics=["char_auroc", "char_ap", "iou", "response_level"], threshold=0.5)
    got = mycelium.evaluate(ds["ref"], text=ds["text"], token_offsets=ds["offsets"],
                            token_scores=ds["scores"], **kwargs)
    want = mycelium.evaluate(REFS, text=TEXTS, token_offsets=OFFSETS, token_scores=SCORES,
                             **kwargs)
    assert same(got, want)


@pytest.mark.parametrize("view", ["shuffle", "select", "filter"])
def test_row_order_of_a_derived_dataset(ds, view, no_python_rows):
    """Indices of a shuffled, selected or filtered dataset are applied (by Arrow)."""
    if view == "shuffle":
        sub = ds.shuffle(seed=4)
    elif view == "select":
        sub = ds.select([5, 0, 3, 3])
    else:
        sub = ds.filter(lambda r: r["lang"] == "en")
    assert sub._indices is not None  # a view over the original table, not a copy
    truth = {name: rows(sub, name) for name in ("ref", "pred", "text", "offsets", "scores")}
    got = mycelium.evaluate(sub["ref"], text=sub["text"], token_offsets=sub["offsets"],
                            token_scores=sub["scores"], threshold=0.4)
    want = mycelium.evaluate([[[s["start"], s["end"]] for s in r] for r in truth["ref"]],
                             text=truth["text"], token_offsets=truth["offsets"],
                             token_scores=truth["scores"], threshold=0.4)
    assert same(got, want)


def test_the_accumulator_over_arrow_batches(ds, no_python_rows):
    acc = mycelium.Accumulator(metrics=["iou", "character", "char_auroc"], average="micro")
    for batch in ds.with_format("arrow").iter(batch_size=4):  # pyarrow Tables
        acc.update(batch["ref"], text=batch["text"], token_offsets=batch["offsets"],
                   token_scores=batch["scores"], threshold=0.5)
    for first in (0, 3):  # and the dataset's own columns, slice by slice
        part = ds.select(range(first, first + 3))
        acc_part = mycelium.Accumulator(metrics=["iou", "character", "char_auroc"],
                                        average="micro")
        acc_part.update(part["ref"], text=part["text"], token_offsets=part["offsets"],
                        token_scores=part["scores"], threshold=0.5)
        assert acc_part.compute()["meta"]["examples"] == 3
    want = mycelium.evaluate(REFS, text=TEXTS, token_offsets=OFFSETS, token_scores=SCORES,
                             threshold=0.5, metrics=["iou", "character", "char_auroc"],
                             average="micro")
    assert same(acc.compute(), want)


def test_a_nested_column(no_python_rows):
    ds = datasets.Dataset.from_dict({"meta": [{"spans": s, "n": len(s)}
                                              for s in as_dicts(REFS)]})
    got = mycelium.evaluate(ds["meta"]["spans"], ds["meta"]["spans"], metrics="iou")
    assert same(got, mycelium.evaluate(REFS, REFS, metrics="iou"))


def test_a_transformed_dataset_is_read_as_its_transform_says(ds):
    """A custom formatting transform decides what a row is: left to it (Python)."""
    shifted = ds.with_transform(lambda batch: {"ref": [[{"start": s["start"],
                                                         "end": s["end"]} for s in r]
                                                       for r in batch["ref"]]})
    column = shifted["ref"]
    assert arrow_source(column) is column  # not read from the table
    got = mycelium.evaluate(shifted["ref"], shifted["ref"], metrics="iou")
    assert got["iou"] == {"score": 1.0}


def test_compute_metrics_from_a_tokenized_dataset(no_python_rows):
    """The offsets of ``ds.map(tokenize)`` go into `compute_metrics_for` as a column."""
    from mycelium.integrations.transformers import compute_metrics_for

    ds = datasets.Dataset.from_dict({"text": TEXTS, "ref": as_dicts(REFS),
                                     "offset_mapping": OFFSETS})
    width = max(map(len, OFFSETS))
    rng = np.random.default_rng(2)
    logits = rng.normal(0, 1, (len(TEXTS), width, 2))
    compute = compute_metrics_for(ds["text"], ds["offset_mapping"], ds["ref"],
                                  threshold=0.5)
    got = compute((logits, None))
    plain = compute_metrics_for(TEXTS, OFFSETS, REFS, threshold=0.5)
    assert same(got, plain((logits, None)))
