"""Write the small synthetic example dataset shipped in ``examples/data/``.

Short texts in four languages with hand-placed "hallucinated" reference spans, scored
by four synthetic detectors of different character (a careful one, an over-marking one,
a one-character-per-span one and a random one) over two models and two tasks.
Everything is generated here from a fixed seed; no third-party data is used.

Two layouts of the same rows are written:

- ``detections.jsonl``: one row per example and detector, references and predictions
  side by side (``ref_spans``, ``pred_spans``);
- ``references.jsonl`` plus ``predictions/<detector>.jsonl``: the shared-task layout, one
  reference file and one submission per detector, each with an ``id`` and a ``spans``
  column; the submissions are shuffled, so they must be paired by id
  (``mycelium evaluate references.jsonl predictions/careful.jsonl --id-col id ...``).

Run: ``python examples/make_example_data.py`` (rewrites examples/data/).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

# (language, text, substrings that are the "hallucinated" facts)
TEXTS = [
    ("en", "The Eiffel Tower was completed in 1899 and is 410 metres tall.", ["1899", "410 metres"]),
    ("en", "Marie Curie won three Nobel Prizes, in physics and chemistry.", ["three"]),
    ("en", "The Danube flows through ten countries before reaching the Baltic Sea.", ["the Baltic Sea"]),
    ("en", "Python was created by Guido van Rossum and first released in 1991.", []),
    ("en", "Mount Everest is located in the Andes on the border of Chile.", ["the Andes", "Chile"]),
    ("de", "Der Rhein mündet bei Hamburg in die Nordsee.", ["bei Hamburg"]),
    ("de", "Goethe schrieb den Faust im Jahr 1950 in Berlin.", ["1950", "in Berlin"]),
    ("de", "Die Zugspitze ist der höchste Berg Deutschlands.", []),
    ("fi", "Helsinki on Suomen pääkaupunki ja sijaitsee Lapissa.", ["Lapissa"]),
    ("fi", "Sibelius sävelsi Finlandian vuonna 1750.", ["1750"]),
    ("zh", "长城位于日本，全长约两千公里。", ["日本", "两千公里"]),
    ("zh", "北京是中国的首都。", []),
]
MODELS = ["model-a", "model-b"]
TASKS = ["qa", "summary"]


def ref_spans(text: str, facts: list[str]) -> list[list[int]]:
    spans = []
    for fact in facts:
        start = text.index(fact)
        spans.append([start, start + len(fact)])
    return spans


def careful(text, refs, rng):
    """Near-misses: boundaries shifted by a character or two, occasionally a miss."""
    out = []
    for s, e in refs:
        if rng.random() < 0.15:
            continue
        s2 = max(0, s + rng.choice([-1, 0, 0, 1]))
        e2 = min(len(text), e + rng.choice([-1, 0, 0, 2]))
        if s2 < e2:
            out.append([s2, e2])
    return out


def overmarking(text, refs, rng):
    """Marks the whole clause around each fact (high recall, low precision)."""
    out = []
    for s, e in refs:
        out.append([max(0, s - rng.randint(5, 15)), min(len(text), e + rng.randint(5, 15))])
    if not refs and rng.random() < 0.5:
        out.append([0, len(text) // 2])
    return out


def pinpoint(text, refs, rng):
    """One character inside each reference span (the under-coverage failure)."""
    return [[s + (e - s) // 2, s + (e - s) // 2 + 1] for s, e in refs]


def random_spans(text, refs, rng):
    out = []
    for _ in range(rng.randint(0, 2)):
        s = rng.randrange(len(text))
        out.append([s, min(len(text), s + rng.randint(1, 12))])
    return out


DETECTORS = {"careful": careful, "overmarking": overmarking, "pinpoint": pinpoint,
             "random": random_spans}


def rows(seed: int = 0):
    rng = random.Random(seed)
    n = 0
    for model in MODELS:
        for task in TASKS:
            for lang, text, facts in TEXTS:
                refs = ref_spans(text, facts)
                for detector, fn in DETECTORS.items():
                    yield {"id": f"ex-{n // len(DETECTORS)}", "lang": lang, "model": model,
                           "task": task, "detector": detector, "text": text,
                           "ref_spans": refs, "pred_spans": fn(text, refs, rng)}
                    n += 1


def split_layout(all_rows: list[dict], seed: int = 1) -> tuple[list[dict], dict[str, list]]:
    """The shared-task layout: one reference file, one shuffled submission per detector."""
    references, predictions = [], {name: [] for name in DETECTORS}
    for row in all_rows:
        if row["detector"] == next(iter(DETECTORS)):
            references.append({k: row[k] for k in ("id", "lang", "model", "task", "text")}
                              | {"spans": row["ref_spans"]})
        predictions[row["detector"]].append({"id": row["id"], "spans": row["pred_spans"]})
    rng = random.Random(seed)
    for submission in predictions.values():
        rng.shuffle(submission)
    return references, predictions


def write_jsonl(path: Path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for record in records:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"wrote {path}")


def main() -> None:
    data = Path(__file__).parent / "data"
    all_rows = list(rows())
    write_jsonl(data / "detections.jsonl", all_rows)
    references, predictions = split_layout(all_rows)
    write_jsonl(data / "references.jsonl", references)
    for detector, records in predictions.items():
        write_jsonl(data / "predictions" / f"{detector}.jsonl", records)


if __name__ == "__main__":
    main()
