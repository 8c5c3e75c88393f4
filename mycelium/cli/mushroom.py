"""``mycelium mushroom``: the official Mu-SHROOM scorer's command, on mycelium's core.

``mycelium mushroom REF PRED [OUT]`` writes exactly what ``participant_kit/scorer.py``
writes (``IoU: %.8f\\nCor: %.8f\\n``), to OUT or standard output. With directories or
glob patterns it pairs per-language files (by the language code in the file name, or the
records' ``lang`` field) and prints one row per language. Invalid files exit with 1 and
one line naming the file, the id and the field (see `mycelium.protocols.mushroom`).
"""

from __future__ import annotations

import argparse
import glob
import re
from pathlib import Path

from ..io.float_parse import FLOAT_PARSES
from ..protocols.mushroom import MushroomInputError, read_jsonl, score_files

DESCRIPTION = """\
Score Mu-SHROOM (SemEval-2025 Task 3) predictions exactly as the official scorer does.

REF and PRED are one reference and one prediction file (jsonl in the official
format: records paired by id; a prediction needs hard_labels or soft_labels, the
other is derived as officially). The output is 'IoU: %.8f\\nCor: %.8f\\n', byte for
byte the official scorer's, written to OUT or standard output.

REF and PRED may also be directories or glob patterns of per-language files: files
are paired by the language code in their names (or the records' 'lang' field) and a
per-language table is printed.

Numbers are read as the official scorer's pandas.read_json reads them (its fast
float parser keeps 15 fraction digits, so near-equal 17-digit probabilities tie;
the published leaderboard's Cor depends on it); --float-parse exact reads them
correctly rounded instead."""


def add_parser(commands) -> None:
    p = commands.add_parser("mushroom", help="the official Mu-SHROOM scorer (IoU and Cor)",
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            description=DESCRIPTION)
    p.add_argument("ref", metavar="REF", help="reference file, directory or glob")
    p.add_argument("pred", metavar="PRED", help="prediction file, directory or glob")
    p.add_argument("out", metavar="OUT", nargs="?",
                   help="write the scores here (one pair of files only)")
    p.add_argument("--float-parse", dest="float_parse", choices=FLOAT_PARSES[::-1],
                   default="pandas-fast",
                   help="how JSON numbers become floats: 'pandas-fast' (default), as the "
                        "official scorer's pandas reader; 'exact', correctly rounded")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                   help="on an error, print the full traceback")
    p.set_defaults(run=run_mushroom, parser=p)


def run_mushroom(args: argparse.Namespace) -> int:
    refs, preds = _expand(args.ref), _expand(args.pred)
    if len(refs) == 1 and len(preds) == 1 and Path(args.ref).is_file() \
            and Path(args.pred).is_file():
        text = score_files(refs[0], preds[0], float_parse=args.float_parse).printed
        if args.out:
            Path(args.out).write_text(text, encoding="utf-8")
        else:
            print(text, end="")
        return 0
    if args.out:
        args.parser.error("OUT is only for one REF and one PRED file; with directories or "
                          "globs the per-language table goes to standard output.")
    print(_table([(lang, r, p, score_files(r, p, float_parse=args.float_parse))
                  for lang, r, p in _pair(refs, preds)]))
    return 0


def _expand(pattern: str) -> list[Path]:
    path = Path(pattern)
    if path.is_dir():
        files = sorted(path.rglob("*.jsonl"))
    elif path.is_file():
        files = [path]
    else:
        files = sorted(Path(p) for p in glob.glob(pattern) if Path(p).is_file())
    if not files:
        raise MushroomInputError(f"{pattern}: no such file, and no .jsonl file matches it.")
    return files


_LANG_IN_NAME = re.compile(r"(?<![a-z])([a-z]{2})(?=-(?:val|tst|test))|^mushroom\.([a-z]{2})\b",
                           re.IGNORECASE)


def _language(path: Path) -> str:
    """The language of a per-language file: from its name, else its records' ``lang``."""
    m = _LANG_IN_NAME.search(path.name)
    if m:
        return (m.group(1) or m.group(2)).lower()
    records = read_jsonl(path)
    langs = {str(r.get("lang", "")).lower() for r in records}
    if len(langs) == 1 and "" not in langs:
        return langs.pop()
    raise MushroomInputError(f"{path}: cannot tell its language: no '<xx>-val'/'<xx>-tst' "
                             "in the file name and no single 'lang' field in its records.")


def _pair(refs: list[Path], preds: list[Path]) -> list[tuple[str, Path, Path]]:
    ref_by_lang = _by_language(refs, "REF")
    langs = "|".join(sorted(ref_by_lang))
    pattern = re.compile(rf"(?<![a-z])({langs})(?![a-z])", re.IGNORECASE)
    pairs = []
    for p in preds:
        found = {m.lower() for m in pattern.findall(p.stem)}
        if len(found) != 1:
            found = {_language(p)}
        lang = found.pop()
        if lang not in ref_by_lang:
            raise MushroomInputError(f"{p}: language {lang!r} has no reference file among "
                                     f"{', '.join(sorted(ref_by_lang))}.")
        pairs.append((lang, ref_by_lang[lang], p))
    # A duplicate first: two files for one language usually mean one was misnamed,
    # which also leaves a language without its file.
    taken = [lang for lang, _, _ in pairs]
    duplicate = {lang for lang in taken if taken.count(lang) > 1}
    if duplicate:
        lang = sorted(duplicate)[0]
        files = ", ".join(str(p) for p_lang, _, p in pairs if p_lang == lang)
        raise MushroomInputError(f"several prediction files for language {lang!r} "
                                 f"({files}); give one file per language.")
    missing = sorted(set(ref_by_lang) - {lang for lang, _, _ in pairs})
    if missing and len(preds) > 1:  # one prediction file scores just its language
        raise MushroomInputError(f"no prediction file for language {missing[0]!r} "
                                 f"({ref_by_lang[missing[0]]}); give one prediction file per "
                                 "reference language, or narrow REF to the languages you "
                                 "predicted.")
    return sorted(pairs)


def _by_language(files: list[Path], role: str) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for f in files:
        lang = _language(f)
        if lang in out:
            raise MushroomInputError(f"{role}: two files for language {lang!r}: {out[lang]} "
                                     f"and {f}.")
        out[lang] = f
    return out


def _table(rows) -> str:
    lines = [["lang", "examples", "IoU", "Cor", "reference", "prediction"]]
    for lang, ref, pred, res in rows:
        lines.append([lang, str(len(res.ids)), f"{res.iou_mean:.8f}", f"{res.cor_mean:.8f}",
                      str(ref), str(pred)])
    widths = [max(len(row[i]) for row in lines) for i in range(len(lines[0]))]
    out = []
    for i, row in enumerate(lines):
        out.append("  ".join(c.rjust(w) if 1 <= j <= 3 else c.ljust(w)
                             for j, (c, w) in enumerate(zip(row, widths))).rstrip())
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)
