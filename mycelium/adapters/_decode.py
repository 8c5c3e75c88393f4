"""Token strings to their content: the scheme of a tokenization, special tokens, and the
characters each token's bytes belong to (byte-level BPE, SentencePiece, WordPiece, plain)."""

from __future__ import annotations

import functools
import re

__all__ = ["SCHEMES", "BYTE_DECODER", "detect_scheme", "is_special", "split_glued",
           "token_bytes", "units", "token_contents", "ws_table", "white_space"]

SCHEMES = ("bytelevel", "sentencepiece", "wordpiece", "plain")


def _bytes_to_unicode() -> dict[int, str]:
    # GPT-2's byte alphabet (openai/gpt-2 encoder.py, bytes_to_unicode): printable
    # Latin-1 bytes stand for themselves, the other 68 bytes map to chr(256 + n).
    keep = (list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD))
            + list(range(0xAE, 0x100)))
    table, n = {}, 0
    for b in range(256):
        if b in keep:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + n)
            n += 1
    return table


BYTE_ENCODER = _bytes_to_unicode()
BYTE_DECODER = {c: b for b, c in BYTE_ENCODER.items()}
_BYTE_ALPHABET = frozenset(BYTE_DECODER)
#: ``str.translate`` table: a byte-level character to the Latin-1 character of its byte.
_BYTE_TRANSLATE = {ord(c): b for c, b in BYTE_DECODER.items()}
#: Characters that can only mean byte-level BPE: the stand-ins of whitespace bytes (Ġ, Ċ,
#: ĉ, ...) and of bytes >= 0x80 (remapped or Latin-1). Those of the other control bytes
#: ('đ' is 0x11) are not: such bytes do not occur in text, the letters do.
_BYTE_EVIDENCE = frozenset(c for c, b in BYTE_DECODER.items() if ord(c) >= 0x80
                           and (b >= 0x80 or 0x09 <= b <= 0x0D or b == 0x20))

@functools.cache
def white_space() -> frozenset[str]:
    """Unicode White_Space: the characters ``str.isspace`` accepts, less the four
    separators U+001C..U+001F that are not White_Space. Computed on first use (a pass
    over every code point, ~50 ms), not when the module is imported."""
    return frozenset(chr(c) for c in range(0x110000) if chr(c).isspace()
                     and not 0x1C <= c <= 0x1F)


@functools.cache
def ws_table() -> dict[int, str]:
    """``str.translate`` table mapping every `white_space` character to a plain space."""
    return {ord(c): " " for c in white_space()}


def __getattr__(name: str):
    # WS_TABLE and WHITE_SPACE as module constants, built on first access.
    if name == "WS_TABLE":
        return ws_table()
    if name == "WHITE_SPACE":
        return white_space()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

_BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>\Z")
_SPECIAL = re.compile(
    r"(?:<\|[^<>]*?\|>|<｜[^<>]*?｜>|</?[A-Za-z][\w.\-▁]*>|\[[A-Za-z][A-Za-z0-9_]*\])\Z")
_GLUED = re.compile(r"(?:<\|[^<>|]*\|>|</?s>|<eos>|<bos>|<pad>)\Z")


def is_special(token: str) -> bool:
    """Whether ``token`` is a special token (``<s>``, ``<|eot_id|>``, ``[CLS]``; never
    a ``<0xNN>`` byte token)."""
    return (token.startswith(("<", "[")) and _SPECIAL.match(token) is not None
            and _BYTE_TOKEN.match(token) is None)


def split_glued(tokens: list[str]) -> tuple[list[str], list[int], list[bool]]:
    """Split a special string glued to the end of a token (``'.<s>'``).

    Returns the pieces, the index of the token each piece comes from, and whether the
    piece is special.
    """
    pieces: list[str] = []
    owner: list[int] = []
    special: list[bool] = []
    for i, tok in enumerate(tokens):
        m = None if is_special(tok) or not tok.endswith(">") else _GLUED.search(tok)
        if m is not None and m.start() > 0:
            pieces += [tok[:m.start()], tok[m.start():]]
            owner += [i, i]
            special += [False, True]
        else:
            pieces.append(tok)
            owner.append(i)
            special.append(is_special(tok))
    return pieces, owner, special


def _valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError as exc:  # a truncated last character is allowed
        return exc.reason == "unexpected end of data" and exc.end == len(data)


def detect_scheme(tokens: list[str]) -> str:
    """The scheme of a tokenization (special tokens left out), first match wins.

    *bytelevel*: every character in GPT-2's byte alphabet, some evidence of it, the
    bytes valid UTF-8 (a truncated last character allowed); *sentencepiece*: a '▁' or a
    '<0xNN>' token; *wordpiece*: '##' continuations and no whitespace; *plain* otherwise.
    """
    joined = "".join(t for t in tokens if not is_special(t))
    chars = set(joined)
    if chars and chars <= _BYTE_ALPHABET and chars & _BYTE_EVIDENCE:
        if _valid_utf8(joined.translate(_BYTE_TRANSLATE).encode("latin-1")):
            return "bytelevel"
    if "▁" in chars or any(_BYTE_TOKEN.match(t) for t in tokens if t.startswith("<0x")):
        return "sentencepiece"
    if any(t.startswith("##") and len(t) > 2 for t in tokens) and not chars & white_space():
        return "wordpiece"
    return "plain"


def token_bytes(piece: str, scheme: str) -> bytes:
    """The UTF-8 bytes a (non-special) token piece stands for under ``scheme``."""
    if scheme == "bytelevel":
        return piece.translate(_BYTE_TRANSLATE).encode("latin-1")
    if scheme == "sentencepiece":
        m = _BYTE_TOKEN.match(piece) if piece.startswith("<0x") else None
        if m is not None:
            return bytes([int(m.group(1), 16)])
        return piece.replace("▁", " ").encode("utf-8")
    if scheme == "wordpiece" and piece.startswith("##") and len(piece) > 2:
        piece = piece[2:]
    return piece.encode("utf-8")


def _char_chunks(data: bytes) -> list[tuple[int, int]]:
    """UTF-8 characters of ``data`` as byte ranges; a stray or truncated sequence is one
    chunk of its own (it decodes to U+FFFD)."""
    out, i, n = [], 0, len(data)
    while i < n:
        b = data[i]
        need = 1 if b < 0xC0 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4
        j = i + 1
        while j < n and j - i < need and 0x80 <= data[j] < 0xC0:
            j += 1
        out.append((i, j))
        i = j
    return out


def _complete(data: bytes) -> bool:
    chunks = _char_chunks(data)
    if not chunks:
        return True
    s, e = chunks[-1]
    b = data[s]
    need = 1 if b < 0xC0 else 2 if b < 0xE0 else 3 if b < 0xF0 else 4
    return e - s >= need


def _flush(group: list[tuple[int, bytes]], out: list[tuple[str, int, int, int]]) -> None:
    data = b"".join(b for _, b in group)
    ends, pos = [], 0
    for _, b in group:
        pos += len(b)
        ends.append(pos)
    k = 0
    for s, e in _char_chunks(data):
        while ends[k] <= s:
            k += 1
        first = group[k][0]
        last_k = k
        while ends[last_k] < e:
            last_k += 1
        char = data[s:e].decode("utf-8", errors="replace")[:1]
        out.append((char, first, group[last_k][0], 0))
    group.clear()


def units(pieces: list[str], kinds: list, scheme: str) -> list[tuple[str, int, int, int]]:
    """The content stream: ``(string, first_piece, last_piece, kind)`` in order.

    ``kinds[i]`` is 0 for a content piece and the piece's own kind (True for special,
    or any other non-zero code) otherwise; such a piece is a unit of its own string. A
    content piece whose bytes are whole characters is one unit; pieces that share a
    split character are cut into one unit per character, owned by every piece holding
    one of its bytes (so that both cover it).
    """
    out: list[tuple[str, int, int, int]] = []
    group: list[tuple[int, bytes]] = []
    for i, piece in enumerate(pieces):
        if kinds[i]:
            if group:
                _flush(group, out)
            out.append((piece, i, i, int(kinds[i])))
            continue
        data = token_bytes(piece, scheme)
        if not data:
            continue
        if group and 0x80 <= data[0] < 0xC0:
            group.append((i, data))
        else:
            if group:
                _flush(group, out)
            try:
                out.append((data.decode("utf-8"), i, i, 0))
                continue
            except UnicodeDecodeError:
                group.append((i, data))
        if _complete(b"".join(b for _, b in group)):
            _flush(group, out)
    if group:
        _flush(group, out)
    return out


def token_contents(tokens: list[str], scheme: str | None = None) -> list[str | None]:
    """Each token's decoded content, independent of any text: the characters its bytes
    belong to (tokens sharing a split character both hold it); ``None`` for special
    tokens. A glued special is left out of its token's content."""
    pieces, owner, special = split_glued(list(tokens))
    scheme = scheme or detect_scheme(tokens)
    contents: list[str | None] = [None] * len(tokens)
    for text, first, last, is_sp in units(pieces, special, scheme):
        if is_sp:
            continue
        for p in range(first, last + 1):
            t = owner[p]
            contents[t] = (contents[t] or "") + text
    for t, tok in enumerate(tokens):
        if contents[t] is None and not is_special(tok):
            contents[t] = ""
    return contents
