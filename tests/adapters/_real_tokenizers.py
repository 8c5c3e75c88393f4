"""Real tokenizers trained in the tests (HF ``tokenizers`` and ``sentencepiece``, on the
generated text of ``_corpus``; nothing is downloaded), and the comparison of
``align_tokens`` with each tokenizer's own offsets.

A token is *matched* when the non-whitespace characters its ``align_tokens`` offsets
cover (trimmed policy) are the non-whitespace characters its own offsets cover; a
special token matches when its offsets are zero-length. Byte-fallback pieces get their
own offsets per character first (`byte_pieces_by_character`).

``python tests/adapters/_real_tokenizers.py`` prints the table of docs/alignment.md.
"""

from __future__ import annotations

import io
import json
import re
import tarfile
from dataclasses import dataclass, field
from typing import Callable

from _corpus import documents

TRAIN_SEED, HELD_OUT_SEED = 0, 1
TRAIN_DOCS, HELD_OUT_DOCS = 1500, 600
_BYTE_PIECE = re.compile(r"<0x[0-9A-F]{2}>\Z")
BYTES = [f"<0x{b:02X}>" for b in range(256)]


@dataclass(frozen=True)
class Trained:
    """A trained tokenizer: ``encode(text) -> (tokens, offsets, special)``, its own
    normaliser (None when it keeps the text as it is) and its unknown token."""

    name: str
    encode: Callable
    normalize: Callable[[str], str] | None = None
    unk_token: str | None = None
    meta: dict = field(default_factory=dict)


def _hf(name, model, trainer, *, normalizer=None, pre=None, decoder=None, post=None,
        lines, unk=None, byte_fallback=False):
    from tokenizers import Tokenizer

    tok = Tokenizer(model)
    if normalizer is not None:
        tok.normalizer = normalizer
    if pre is not None:
        tok.pre_tokenizer = pre
    if decoder is not None:
        tok.decoder = decoder
    tok.train_from_iterator(lines, trainer)
    if byte_fallback:  # the trained model again, falling back to byte pieces
        spec = json.loads(tok.to_str())
        spec["model"]["byte_fallback"] = True
        tok = Tokenizer.from_str(json.dumps(spec))
    if post is not None:
        tok.post_processor = post(tok)

    def encode(text):
        enc = tok.encode(text)
        return enc.tokens, enc.offsets, [bool(m) for m in enc.special_tokens_mask]

    norm = tok.normalizer.normalize_str if tok.normalizer is not None else None
    return Trained(name, encode, norm, unk)


def _pair(tok, first, last):
    from tokenizers.processors import TemplateProcessing

    return TemplateProcessing(single=f"{first} $A {last}",
                              special_tokens=[(first, tok.token_to_id(first)),
                                              (last, tok.token_to_id(last))])


def byte_level(lines, *, prefix_space):
    from tokenizers import decoders, models, pre_tokenizers, trainers

    pre = pre_tokenizers.ByteLevel(add_prefix_space=prefix_space)
    trainer = trainers.BpeTrainer(vocab_size=3000, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    name = "HF byte-level BPE, " + ("prefix space" if prefix_space else "no prefix space")
    return _hf(name, models.BPE(), trainer, pre=pre, decoder=decoders.ByteLevel(),
               lines=lines)


def metaspace(lines, *, kind):
    from tokenizers import decoders, models, pre_tokenizers, trainers

    specials = ["<unk>", "<s>", "</s>"] + BYTES
    if kind == "unigram":
        model = models.Unigram()
        trainer = trainers.UnigramTrainer(vocab_size=3000, special_tokens=specials,
                                          unk_token="<unk>", show_progress=False)
    else:
        model = models.BPE(unk_token="<unk>")
        trainer = trainers.BpeTrainer(vocab_size=3000, special_tokens=specials,
                                      show_progress=False)
    return _hf(f"HF Metaspace {'Unigram' if kind == 'unigram' else 'BPE'}, byte fallback",
               model, trainer, pre=pre_tokenizers.Metaspace(), decoder=decoders.Metaspace(),
               post=lambda t: _pair(t, "<s>", "</s>"), lines=lines, unk="<unk>",
               byte_fallback=True)


def wordpiece(lines, *, lowercase):
    from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers

    trainer = trainers.WordPieceTrainer(
        vocab_size=3000, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
        limit_alphabet=400, show_progress=False)
    return _hf(f"HF WordPiece, {'uncased' if lowercase else 'cased'}",
               models.WordPiece(unk_token="[UNK]"), trainer,
               normalizer=normalizers.BertNormalizer(lowercase=lowercase),
               pre=pre_tokenizers.BertPreTokenizer(), decoder=decoders.WordPiece(),
               post=lambda t: _pair(t, "[CLS]", "[SEP]"), lines=lines, unk="[UNK]")


def sentencepiece(lines, *, model_type, rule):
    import sentencepiece as spm

    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=buf, vocab_size=3000,
        model_type=model_type, normalization_rule_name=rule, character_coverage=0.995,
        byte_fallback=rule == "identity", num_threads=1, minloglevel=2,
        hard_vocab_limit=False, max_sentence_length=100_000)
    sp = spm.SentencePieceProcessor(model_proto=buf.getvalue())

    def encode(text):
        data = text.encode("utf-8")
        char_at = [0] * (len(data) + 1)
        k = 0
        for i, ch in enumerate(text):
            for _ in ch.encode("utf-8"):
                char_at[k] = i
                k += 1
        char_at[len(data)] = len(text)
        proto = sp.encode(text, out_type="proto")
        tokens, offsets = [], []
        for piece in proto.pieces:
            tokens.append(piece.piece)
            offsets.append([char_at[piece.begin], char_at[piece.end]]
                           if piece.end > piece.begin else [char_at[piece.begin]] * 2)
        return tokens, offsets, [False] * len(tokens)

    label = "identity, byte fallback" if rule == "identity" else "NFKC"
    return Trained(f"sentencepiece {model_type}, {label}", encode,
                   None if rule == "identity" else sp.normalize)


KINDS = {
    "bytelevel": lambda lines: byte_level(lines, prefix_space=False),
    "bytelevel_prefix": lambda lines: byte_level(lines, prefix_space=True),
    "metaspace_unigram": lambda lines: metaspace(lines, kind="unigram"),
    "metaspace_bpe": lambda lines: metaspace(lines, kind="bpe"),
    "wordpiece_cased": lambda lines: wordpiece(lines, lowercase=False),
    "wordpiece_uncased": lambda lines: wordpiece(lines, lowercase=True),
    "spm_unigram_identity": lambda lines: sentencepiece(lines, model_type="unigram",
                                                       rule="identity"),
    "spm_bpe_identity": lambda lines: sentencepiece(lines, model_type="bpe",
                                                   rule="identity"),
    "spm_unigram_nfkc": lambda lines: sentencepiece(lines, model_type="unigram",
                                                   rule="nmt_nfkc"),
    "spm_bpe_nfkc": lambda lines: sentencepiece(lines, model_type="bpe", rule="nmt_nfkc"),
}


def training_lines() -> list[str]:
    return documents(TRAIN_SEED, TRAIN_DOCS)


def held_out() -> list[str]:
    return documents(HELD_OUT_SEED, HELD_OUT_DOCS, held_out=True)


def byte_pieces_by_character(text, tokens, offsets):
    """Own offsets of byte-fallback pieces ('<0xNN>'), each piece given the characters
    its bytes belong to. The tokenizers give a run of byte pieces coarser offsets:
    sentencepiece gives a character to its last byte piece (the others get empty
    offsets), HF ``tokenizers`` give every piece of a run the whole run of characters
    they fell back on. When the run's bytes are the UTF-8 of the characters its offsets
    span, each piece's character follows from the byte arithmetic alone."""
    out = [list(o) for o in offsets]
    i = 0
    while i < len(tokens):
        if not _BYTE_PIECE.match(tokens[i]):
            i += 1
            continue
        j = i
        while j < len(tokens) and _BYTE_PIECE.match(tokens[j]):
            j += 1
        s, e = min(o[0] for o in offsets[i:j]), max(o[1] for o in offsets[i:j])
        data = bytes(int(t[3:5], 16) for t in tokens[i:j])
        if text[s:e].encode("utf-8") == data:
            owner = [s + k for k, ch in enumerate(text[s:e]) for _ in ch.encode("utf-8")]
            for k in range(i, j):
                out[k] = [owner[k - i], owner[k - i] + 1]
        i = j
    return out


def _nonspace(text, s, e):
    return frozenset(i for i in range(s, e) if not text[i].isspace())


@dataclass
class Tally:
    matched: int = 0
    tokens: int = 0
    misses: list = field(default_factory=list)


def compare(align, trained: Trained, texts, *, use_normalize=True, keep=20,
            by_character=True) -> Tally:
    """Align each text's tokens with ``align`` (``mycelium.align_tokens``) and count
    the tokens matching the tokenizer's own offsets (``by_character=False``: byte
    pieces compared with the tokenizer's offsets as they are)."""
    out = Tally()
    for text in texts:
        tokens, own, special = trained.encode(text)
        if by_character:
            own = byte_pieces_by_character(text, tokens, own)
        kwargs = {}
        if use_normalize and trained.normalize is not None:
            kwargs["normalize"] = trained.normalize
        if trained.unk_token is not None and trained.unk_token not in ("[UNK]", "<unk>"):
            kwargs["unk_token"] = trained.unk_token
        got = align(text, tokens, **kwargs)
        for i, (tok, (s, e), (a, b), sp) in enumerate(zip(tokens, own, got, special)):
            want = frozenset() if sp else _nonspace(text, s, e)
            ok = (a == b) if sp else _nonspace(text, a, b) == want
            out.tokens += 1
            out.matched += ok
            if not ok and len(out.misses) < keep:
                out.misses.append((text, i, tok, (s, e), (a, b)))
    return out


def mushroom_texts(folder) -> list[str]:
    """``model_output_text`` of every Mu-SHROOM validation (v2) and labeled test record."""
    from pathlib import Path

    folder = Path(folder)
    paths = sorted((folder / "splits/val/v2").glob("*.jsonl")) + sorted(
        (folder / "splits/test_labeled/v1").glob("*.jsonl"))
    return [json.loads(line)["model_output_text"] for path in paths
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def measure(align, kinds, texts: dict[str, list[str]], *,
            variants=("with", "without", "raw")):
    """``{kind: {f"{set} {variant}": [matched, tokens]}}``: each kind trained on the
    training documents, compared on each named text set with its own normaliser
    (``with``), without it (``without``, normalising kinds only), and with byte pieces
    against the tokenizer's offsets as they are (``raw``, byte-fallback kinds only)."""
    lines = training_lines()
    out: dict = {}
    for kind in kinds:
        trained = KINDS[kind](lines)
        row = out[kind] = {}
        for name, docs in texts.items():
            for variant in variants:
                if variant == "without" and trained.normalize is None:
                    continue
                if variant == "raw" and "fallback" not in trained.name:
                    continue
                tally = compare(align, trained, docs, use_normalize=variant != "without",
                                by_character=variant != "raw")
                row[f"{name} {variant}"] = [tally.matched, tally.tokens]
    return out


def _old_align(align):
    """``align`` without the options an earlier revision lacks."""
    import inspect

    params = inspect.signature(align).parameters

    def call(text, tokens, **kwargs):
        return align(text, tokens, **{k: v for k, v in kwargs.items() if k in params})
    return call


def main(argv=None) -> None:
    import argparse
    import os
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    parser = argparse.ArgumentParser(description="The real-tokenizer table of "
                                                 "docs/alignment.md.")
    parser.add_argument("--mushroom", default=os.environ.get("MYCELIUM_MUSHROOM_DIR"),
                        help="the Mu-SHROOM folder: its model_output_text as a second "
                             "held-out text (default: $MYCELIUM_MUSHROOM_DIR)")
    parser.add_argument("--before", help="also measure this git revision's align_tokens")
    parser.add_argument("--only", default=",".join(KINDS))
    parser.add_argument("--package-root", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.package_root:
        sys.path.insert(0, args.package_root)
    import mycelium

    kinds = args.only.split(",")
    texts = {"generated": held_out()}
    if args.mushroom:
        texts["mushroom"] = mushroom_texts(args.mushroom)
    if args.package_root:  # the earlier revision, as a subprocess of the run below
        print(json.dumps(measure(_old_align(mycelium.align_tokens), kinds, texts,
                                 variants=("with",))))
        return
    after = measure(mycelium.align_tokens, kinds, texts)
    before: dict = {}
    if args.before:
        root = Path(__file__).resolve().parents[2]
        with tempfile.TemporaryDirectory() as tmp:
            data = subprocess.run(["git", "-C", str(root), "archive", args.before,
                                   "mycelium"], check=True, capture_output=True).stdout
            with tarfile.open(fileobj=io.BytesIO(data)) as tar:
                tar.extractall(tmp, filter="data")
            cmd = [sys.executable, __file__, "--package-root", tmp, "--only", args.only]
            if args.mushroom:
                cmd += ["--mushroom", args.mushroom]
            done = subprocess.run(cmd, check=True, capture_output=True, text=True,
                                  env=dict(os.environ, PYTHONPATH=tmp))
            before = json.loads(done.stdout.strip().splitlines()[-1])
    _table(kinds, texts, after, before)


def _share(pair) -> str:
    return "" if not pair else f"{pair[0]:,} / {pair[1]:,} = {100 * pair[0] / pair[1]:.2f}%"


def _table(kinds, texts, after, before) -> None:
    for name in texts:
        print(f"\n{name} held-out text\n")
        print("| tokenizer | before | after | after, without its normaliser | after, "
              "byte pieces as the tokenizer gives them |")
        print("|---|---:|---:|---:|---:|")
        for kind in kinds:
            row = after[kind]
            print(f"| {_NAMES[kind]} | {_share(before.get(kind, {}).get(f'{name} with'))} "
                  f"| {_share(row.get(f'{name} with'))} "
                  f"| {_share(row.get(f'{name} without'))} "
                  f"| {_share(row.get(f'{name} raw'))} |")


_NAMES = {
    "bytelevel": "HF byte-level BPE, no prefix space",
    "bytelevel_prefix": "HF byte-level BPE, prefix space",
    "metaspace_unigram": "HF Metaspace Unigram, byte fallback",
    "metaspace_bpe": "HF Metaspace BPE, byte fallback",
    "wordpiece_cased": "HF WordPiece, cased",
    "wordpiece_uncased": "HF WordPiece, uncased",
    "spm_unigram_identity": "sentencepiece Unigram, identity, byte fallback",
    "spm_bpe_identity": "sentencepiece BPE, identity, byte fallback",
    "spm_unigram_nfkc": "sentencepiece Unigram, nmt_nfkc",
    "spm_bpe_nfkc": "sentencepiece BPE, nmt_nfkc",
}


if __name__ == "__main__":
    main()
