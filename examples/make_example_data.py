"""Write the small synthetic example dataset shipped in ``examples/data/``.

Short texts in four languages with hand-placed "hallucinated" reference spans, scored
by four synthetic detectors of different character (a careful one, an over-marking one,
a one-character-per-span one and a random one) over two models and two tasks.
Everything is generated here from a fixed seed; no third-party data is used.

Run: ``python examples/make_example_data.py`` (rewrites examples/data/detections.jsonl).
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


def main() -> None:
    path = Path(__file__).parent / "data" / "detections.jsonl"
    path.parent.mkdir(exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for row in rows():
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
