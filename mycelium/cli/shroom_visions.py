"""``mycelium shroom-visions``: the SHROOM-Visions 2026 kit scorer's command, on numpy.

``mycelium shroom-visions REF PRED OUT`` takes the kit's arguments, prints its result
lines (``Cor    : x``, ``IoU    : x``, ``Cor lbl: x`` at 8 decimals, and its classification
lines when the gold has ``raw_annots``) and writes its OUT file byte for byte (see
`mycelium.protocols.shroom_visions`). A file the kit refuses exits with 1 and one line
naming the rule, the file, the line, the id and the span. ``--html FILE`` also writes
the result's HTML report (`mycelium.report.visions.visions_report`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..protocols.shroom_visions import score_files

DESCRIPTION = """\
Score SHROOM-Visions 2026 predictions exactly as the participant kit's scorer does.

REF is the gold jsonl (id, response, labels; raw_annots optional), PRED the
predictions (id, labels, for all the gold's items or some: the gold is cut to the
predicted ids). Prints Cor, IoU and Cor lbl (8 decimals; with raw_annots in the gold,
the kit's acc, f1, prec and rec lines too) and writes the kit's OUT file ('Cor' and
'Cor lbl' lines), byte for byte.

The kit's rules are kept: gold overlaps add up, predicted spans overwrite in list
order, the constant rule on values rounded to 8 dp, Cor lbl over the union of labels,
IoU over every span (prob 0 too), numbers read by pandas' fast float parser. It
refuses what the kit refuses (a span's types must be exactly int, int, float, str; the
labels are invention, mischaracterization, OCR, miscounting, other; no extra or
repeated ids), naming the rule."""


def add_parser(commands) -> None:
    p = commands.add_parser("shroom-visions",
                            help="the SHROOM-Visions kit scorer (Cor, IoU, Cor lbl)",
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            description=DESCRIPTION)
    p.add_argument("ref", metavar="REF", help="gold file (jsonl)")
    p.add_argument("pred", metavar="PRED", help="prediction file (jsonl)")
    p.add_argument("out", metavar="OUT", help="write the kit's output file here")
    p.add_argument("--labels-ignore-case", dest="labels_ignore_case", action="store_true",
                   help="accept a label that is one of the five but for its case ('ocr' "
                        "as 'OCR'); off by default, as in the kit; recorded in the "
                        "signature")
    p.add_argument("--signature", action="store_true",
                   help="also print the rules and the gold's hash as a signature line")
    p.add_argument("--per-label", dest="per_label", action="store_true",
                   help="also print Cor and IoU per label, with items and spans")
    p.add_argument("--html", metavar="FILE",
                   help="also write an HTML report: the kit's numbers, Cor and IoU per "
                        "label beside the Cor of the same items, and the items where "
                        "Cor+Lbl falls furthest below Cor")
    p.set_defaults(run=run_shroom_visions, parser=p)


def run_shroom_visions(args: argparse.Namespace) -> int:
    result = score_files(args.ref, args.pred, labels_ignore_case=args.labels_ignore_case)
    Path(args.out).write_text(result.written, encoding="utf-8")
    print(result.printed, end="")
    if args.per_label:
        print(result.per_label().to_string(index=False,
                                           float_format=lambda x: f"{x:.8f}"))
    if args.signature or args.labels_ignore_case:
        print(f"signature: {result.signature}")
    if args.html is not None:
        from ..report.visions import visions_report

        Path(args.html).write_text(visions_report(result, title=f"SHROOM-Visions: "
                                                  f"{Path(args.pred).name}"),
                                   encoding="utf-8")
    return 0
