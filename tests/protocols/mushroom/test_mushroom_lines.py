"""``mycelium mushroom`` reads JSON lines as the official scorer does: records end at
"\\n" only (a raw U+2028, U+2029 or U+0085 inside a string is part of it), a "\\r\\n"
ending is accepted, a byte order mark refused (as the official scorer refuses it), and a
bad byte is named with file and line."""

import codecs
import json

from _mushroom_support import assert_one_error_line, run_cli

from mycelium.protocols.mushroom import read_jsonl

TEXT = "ab\u2028cd\u2029ef\x85gh"  # 11 code points; raw separators are legal in JSON
REF = {"id": "a-1", "model_output_text": TEXT, "hard_labels": [[0, 4]],
       "soft_labels": [{"start": 0, "end": 4, "prob": 1.0}]}
PRED = {"id": "a-1", "hard_labels": [[2, 11]]}


def write(path, records, *, ending="\n", bom=False):
    text = "".join(json.dumps(r, ensure_ascii=False) + ending for r in records)
    path.write_bytes((codecs.BOM_UTF8 if bom else b"") + text.encode("utf-8"))
    return path


def test_raw_line_separators_stay_inside_the_record(tmp_path):
    ref = write(tmp_path / "ref.jsonl", [REF])
    assert read_jsonl(ref) == [REF]
    status, out, err = run_cli(["mushroom", ref, write(tmp_path / "pred.jsonl", [PRED])])
    assert (status, err) == (0, "")
    # The same record with ordinary characters in place of the separators scores the same.
    plain = write(tmp_path / "plain.jsonl", [dict(REF, model_output_text="x" * len(TEXT))])
    assert run_cli(["mushroom", plain, tmp_path / "pred.jsonl"]) == (0, out, "")
    assert out == f"IoU: {2 / 11:.8f}\nCor: -0.62360956\n"


def test_crlf_endings_and_a_byte_order_mark(tmp_path):
    # CRLF endings: read as the official scorer reads them. A byte order mark: refused,
    # as the official scorer refuses the file (its reader fails; run on these lines).
    ref = write(tmp_path / "ref.jsonl", [REF], ending="\r\n")
    pred = write(tmp_path / "pred.jsonl", [PRED], ending="\r\n")
    plain = run_cli(["mushroom", write(tmp_path / "r.jsonl", [REF]),
                     write(tmp_path / "p.jsonl", [PRED])])
    assert run_cli(["mushroom", ref, pred]) == plain
    assert plain[0] == 0
    pred = write(tmp_path / "pred.jsonl", [PRED], ending="\r\n", bom=True)
    status, out, err = run_cli(["mushroom", ref, pred])
    assert (status, out) == (1, "")
    assert_one_error_line(err, [(str(pred), "byte order mark", "official scorer")])


def test_invalid_utf8_names_the_file_and_line(tmp_path):
    ref = write(tmp_path / "ref.jsonl", [REF])
    pred = tmp_path / "pred.jsonl"
    pred.write_bytes(b'{"id": "a-1", "hard_labels": []}\n{"id": "\xc3("}\n')
    status, out, err = run_cli(["mushroom", ref, pred])
    assert (status, out) == (1, "")
    line = assert_one_error_line(err, [(f"{pred}, line 2", "not valid UTF-8")])
    assert line == (f"mycelium: error: {pred}, line 2: not valid UTF-8 (byte 0xc3 at byte "
                    "9 of the line); expected UTF-8 text; fix by saving the file as UTF-8.")
