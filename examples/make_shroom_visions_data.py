"""Write the small synthetic SHROOM-Visions example shipped in ``examples/data/shroom_visions/``.

Six made-up answers about made-up images, in the task's format: a gold file (``id``,
``language``, ``response``, ``labels`` with typed soft spans ``{start, end, prob,
label}``, ``prob`` being the share of three annotators) and one system's predictions
(``id``, ``labels``). No SHROOM-Visions data is used. The spans are placed so that every
rule of the kit's scorer shows: overlapping gold spans add up, a span of the right place
and the wrong type, a type only the prediction uses, an item neither side marks.

Run: ``python examples/make_shroom_visions_data.py`` (rewrites the two files).
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).parent / "data" / "shroom_visions"
THIRD, TWO_THIRDS = 1 / 3, 2 / 3

# (id, response, gold spans as (substring, prob, label), predicted spans likewise)
ITEMS = [
    ("demo-en-1", "The sign above the door reads OPEN 24 HOURS and two cats sit below it.",
     [("OPEN 24 HOURS", 1.0, "OCR"), ("two", TWO_THIRDS, "miscounting")],
     [("OPEN 24 HOURS", 0.9, "OCR"), ("two cats", 0.6, "miscounting")]),
    ("demo-en-2", "A red tram crosses the bridge while a man in a yellow coat waves.",
     [("red", THIRD, "mischaracterization"), ("red tram", THIRD, "mischaracterization"),
      ("yellow coat", 1.0, "invention")],
     [("red tram", 0.7, "mischaracterization"), ("yellow coat", 0.8, "mischaracterization")]),
    ("demo-en-3", "Three boats are moored in the harbour under a clear sky.",
     [("Three", 1.0, "miscounting")],
     [("Three", 0.9, "miscounting"), ("clear sky", 0.3, "other")]),
    ("demo-en-4", "The plate holds a sandwich, an apple and a glass of milk.",
     [], []),
    ("demo-en-5", "The poster announces a concert on 12 May at the Grand Hall.",
     [("12 May", TWO_THIRDS, "OCR"), ("Grand Hall", THIRD, "OCR")],
     [("12 May", 0.8, "OCR")]),
    ("demo-en-6", "A dog wearing a blue scarf is chasing a ball across the lawn.",
     [("blue scarf", TWO_THIRDS, "invention")],
     [("wearing a blue scarf", 0.4, "invention"), ("blue", 0.9, "invention")]),
]


def spans(text: str, marks) -> list[dict]:
    out = []
    for sub, prob, label in marks:
        start = text.index(sub)
        out.append({"start": start, "end": start + len(sub), "prob": round(prob, 10),
                    "label": label})
    return out


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "gold.jsonl", "w", encoding="utf-8") as g, \
            open(OUT / "pred.jsonl", "w", encoding="utf-8") as p:
        for item_id, text, gold, pred in ITEMS:
            g.write(json.dumps({"id": item_id, "language": "en", "response": text,
                                "labels": spans(text, gold)}) + "\n")
            p.write(json.dumps({"id": item_id, "labels": spans(text, pred)}) + "\n")


if __name__ == "__main__":
    main()
