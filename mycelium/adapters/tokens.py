"""``align_tokens``: token strings as LLMs emit them onto code-point offsets of the text
(SPEC section 9, "Aligning token strings")."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import SpanValidationError
from ._decode import SCHEMES, detect_scheme, split_glued, units, ws_table
from ._match import CONTENT, SPECIAL, UNKNOWN, Cover, walk
from ._normalize import Normalized, normalize_text, normalizer
from ._unknown import UNKNOWN_TOKENS, share_out

__all__ = ["align_tokens", "AlignmentReport"]


@dataclass(frozen=True)
class AlignmentReport:
    """What ``align_tokens`` did with each token class and with the text.

    Attributes
    ----------
    scheme : str
        The scheme used (recognised or forced).
    placed : int
        Tokens with non-whitespace content, placed on the text.
    whitespace : int
        Whitespace-only tokens placed on text whitespace.
    special : int
        Special tokens (zero-length unless their literal string stands in the text).
    unplaced : int
        Tokens whose content is not in the text (zero-length offsets).
    first_unplaced : tuple
        The first few unplaced tokens as ``(index, token)``.
    unknown : int
        Unknown tokens (``[UNK]``, ``<unk>``, ``unk_token=``); they cover the text they
        stand for, or nothing (zero-length) when no text is left between their neighbours.
    unknown_stretches : int
        Stretches of text that runs of unknown tokens stand for (non-empty ones).
    resyncs : int
        Times the text and the tokens parted and the alignment resumed further on.
    normalized : int
        Characters of the text that ``normalize=`` changed or dropped.
    uncovered : int
        Non-whitespace characters of the text that no token covers.
    first_uncovered : tuple
        The first few uncovered stretches as ``(start, end)``.
    """

    scheme: str
    placed: int
    whitespace: int
    special: int
    unplaced: int
    first_unplaced: tuple = field(default=())
    unknown: int = 0
    unknown_stretches: int = 0
    resyncs: int = 0
    normalized: int = 0
    uncovered: int = 0
    first_uncovered: tuple = field(default=())

    def as_dict(self) -> dict:
        """The report as a plain dict."""
        return {"scheme": self.scheme, "placed": self.placed,
                "whitespace": self.whitespace, "special": self.special,
                "unplaced": self.unplaced, "first_unplaced": list(self.first_unplaced),
                "unknown": self.unknown, "unknown_stretches": self.unknown_stretches,
                "resyncs": self.resyncs, "normalized": self.normalized,
                "uncovered": self.uncovered,
                "first_uncovered": list(self.first_uncovered)}


def align_tokens(text: str, tokens, *, trim: bool = True, scheme: str | None = None,
                 strict: bool = False, report: bool = False, normalize=None,
                 unk_token: str | None = None):
    """Code-point offsets of token strings as a tokenizer emitted them.

    Parameters
    ----------
    text : str
        The text the offsets refer to.
    tokens : sequence of str
        Token strings in order: byte-level BPE (GPT-2's byte alphabet, 'Ġ' = space),
        SentencePiece ('▁' = space, '<0xNN>' byte tokens), WordPiece ('##'
        continuations) or plain substrings; special and unknown tokens anywhere.
    trim : bool, default True
        True: each token's offsets run from its first to its last non-whitespace
        character (a whitespace-only token gets ``(e, e)`` at its tiling end). False:
        consecutive tokens tile the text, whitespace included.
    scheme : {"bytelevel", "sentencepiece", "wordpiece", "plain"}, optional
        Force a scheme instead of recognising it from the tokens.
    strict : bool, default False
        Raise instead of giving zero-length offsets to tokens not in the text.
    report : bool, default False
        Also return an :class:`AlignmentReport`.
    normalize : callable or {"lower", "nfkc", "nfkc_lower", "bert_uncased"}, optional
        How the tokenizer normalised the text before cutting it: its own normaliser as
        a function ``str -> str`` (HF ``tokenizer.backend_tokenizer.normalizer
        .normalize_str``, sentencepiece's ``normalize``) or a preset. Tokens are matched
        against the normalised text; offsets stay code points of ``text``.
    unk_token : str, optional
        The tokenizer's unknown token when it is not ``[UNK]`` or ``<unk>``.

    Returns
    -------
    list of (int, int), or (list, AlignmentReport) when ``report=True``
        One half-open ``(start, end)`` pair of code points per token.

    Raises
    ------
    SpanValidationError
        With ``strict=True``, when a non-special token's content is not in the text.
    ValueError
        For an unknown ``scheme`` or ``normalize`` name, or a token holding a lone
        surrogate.

    Notes
    -----
    A token covers every character any of its bytes belongs to (tokens that split one
    character all cover it). Any Unicode White_Space matches any other. Where the text
    and the tokens part, the alignment resumes at the earliest text position from
    which the next tokens' content matches for 8 non-whitespace characters (or to the
    end of the tokens or the text; a WordPiece token without '##' only where a word
    starts): text skipped is left uncovered, content the text lacks is not guessed. An
    unknown token covers the stretch between its placed neighbours (several in a row:
    one word each, or one character cluster each while more tokens than words are left,
    the last taking the rest). With ``normalize``, each normalised character maps back to the characters it
    came from (a ligature's letters all cover it; dropped characters are covered by
    nobody). Special and unplaced tokens get ``(p, p)``, p the previous token's tiling
    end (0 at the start). Text whitespace no token covers goes to the following token
    when tiling, whitespace ending the text to the last covering token. SPEC section 9
    states every rule.

    Examples
    --------
    >>> import mycelium
    >>> mycelium.align_tokens("Hello world", ["Hello", "Ġworld"])
    [(0, 5), (6, 11)]
    >>> mycelium.align_tokens("Hello world", ["Hello", "Ġworld"], trim=False)
    [(0, 5), (5, 11)]
    >>> mycelium.align_tokens("Öl ist", ["<s>", "<0xC3>", "<0x96>", "l", "▁ist", "</s>"])
    [(0, 0), (0, 1), (0, 1), (1, 2), (3, 6), (6, 6)]
    >>> offsets, rep = mycelium.align_tokens("ab", ["[CLS]", "a", "##b", "##c"], report=True)
    >>> offsets, rep.placed, rep.special, rep.unplaced
    ([(0, 0), (0, 1), (1, 2), (2, 2)], 2, 1, 1)

    An unknown token covers the text it stands for; a lowercasing tokenizer's tokens
    are found through ``normalize``:

    >>> mycelium.align_tokens("I 😀 it", ["[CLS]", "I", "[UNK]", "it", "[SEP]"])
    [(0, 0), (0, 1), (2, 3), (4, 6), (6, 6)]
    >>> mycelium.align_tokens("Ünïcode", ["unic", "##ode"], normalize="bert_uncased")
    [(0, 4), (4, 7)]
    """
    if scheme is not None and scheme not in SCHEMES:
        raise ValueError(f"Expected scheme one of {', '.join(SCHEMES)} or None, got "
                         f"{scheme!r}; fix by passing one of them.")
    fn = normalizer(normalize)
    unknown = _unknown_tokens(unk_token)
    tokens = _checked(text, tokens)
    pieces, owner, special = split_glued(tokens)
    kinds = [UNKNOWN if piece in unknown else SPECIAL if special[p] else CONTENT
             for p, piece in enumerate(pieces)]
    used = scheme or detect_scheme([t for t in tokens if t not in unknown])
    stream = units(pieces, kinds, used)
    norm = normalize_text(text, fn) if fn is not None else None
    nt = text.translate(ws_table())
    starts = frozenset(k for k, (_, first, _, kind) in enumerate(stream) if not kind
                       and not pieces[first].startswith("##")) if used == "wordpiece" \
        else frozenset()
    done = walk(nt if norm is None else norm.text.translate(ws_table()), stream,
                len(pieces), starts)
    cover = done.cover if norm is None else _mapped(done.cover, norm, nt)
    stretches = _fill_unknown(nt, cover, done.unknown, norm)
    piece_off = _offsets(nt, cover, trim)
    out = [piece_off[p] for p in range(len(pieces)) if p == 0 or owner[p] != owner[p - 1]]
    if not (strict or report):
        return out
    rep = _report(used, pieces, owner, kinds, cover, tokens, nt,
                  unknown_stretches=stretches, resyncs=done.resyncs,
                  normalized=0 if norm is None else norm.changed)
    if strict and rep.unplaced:
        i, tok = rep.first_unplaced[0]
        raise SpanValidationError(
            f"Expected every token's content in the text, got {rep.unplaced} token(s) "
            f"not found, at token {i} ({tok!r}); fix by passing the text the tokens were "
            "produced from (and normalize= if the tokenizer normalised it), or "
            "strict=False to give them zero-length offsets.",
            side="text", example=0)
    return (out, rep) if report else out


def _unknown_tokens(unk_token) -> frozenset[str]:
    if unk_token is None:
        return UNKNOWN_TOKENS
    if not isinstance(unk_token, str) or not unk_token:
        raise TypeError(f"Expected unk_token as a non-empty str or None, got "
                        f"{unk_token!r}; fix by passing the tokenizer's unknown token "
                        "string (tokenizer.unk_token).")
    return UNKNOWN_TOKENS | {unk_token}


def _mapped(cover: Cover, norm: Normalized, nt: str) -> Cover:
    """The cover in code points of the original text (``nt``: its White_Space as ' '),
    the non-whitespace range taken from the original characters: whitespace the
    normaliser wrote for a character that is not (sentencepiece's '▁' for U+200C) is
    that character."""
    out = Cover(len(cover.lo))
    for p, lo in enumerate(cover.lo):
        if lo < 0:
            continue
        s = norm.at(lo)
        e = max(s, norm.end(cover.hi[p]))
        if s == e:  # only characters the normaliser wrote (a dummy '▁'): not in the text
            continue
        out.lo[p], out.hi[p] = s, e
        ns, ne = s, e
        while ns < ne and nt[ns] == " ":
            ns += 1
        while ne > ns and nt[ne - 1] == " ":
            ne -= 1
        if ns < ne:
            out.nlo[p], out.nhi[p] = ns, ne
    return out


def _fill_unknown(nt: str, cover: Cover, stretches, norm: Normalized | None) -> int:
    """Give each run of unknown tokens its stretch of the text; returns how many
    stretches held something to cover."""
    count = 0
    dropped = norm.dropped() if norm is not None and stretches else set()
    for pieces, a, b in stretches:
        if norm is not None:  # from after the character before to before the next
            a, b = (norm.end(a) if a else 0), norm.at(b)
            a, b = _without_dropped(nt, min(a, b), b, dropped)
        parts = share_out(nt, len(pieces), a, b)
        count += parts[0] is not None
        for p, part in zip(pieces, parts):
            if part is not None:
                cover.lo[p], cover.hi[p], cover.nlo[p], cover.nhi[p] = part
    return count


def _without_dropped(nt: str, a: int, b: int, dropped: set[int]) -> tuple[int, int]:
    """The stretch ``[a, b)`` without the characters the normaliser dropped at its
    edges (a stripped mark of the word before): nobody covers them."""
    p = a
    while p < b and (nt[p] == " " or p in dropped):
        if p in dropped:
            a = p + 1
        p += 1
    p = b
    while p > a and (nt[p - 1] == " " or p - 1 in dropped):
        if p - 1 in dropped:
            b = p - 1
        p -= 1
    return a, b


def _offsets(nt: str, cover: Cover, trim: bool) -> list[tuple[int, int]]:
    n = len(nt)
    lo, hi = cover.lo, cover.hi
    covering = [p for p in range(len(lo)) if lo[p] >= 0]
    if covering:  # whitespace that ends the text goes to the last covering token
        last = covering[-1]
        if hi[last] < n and not nt[hi[last]:].strip(" "):
            hi[last] = n
    out, prev = [], 0
    for p in range(len(lo)):
        if lo[p] < 0:
            out.append((prev, prev))
            continue
        start = lo[p]
        if start >= prev:
            while start > prev and nt[start - 1] == " ":
                start -= 1
        end = hi[p]
        if trim:
            out.append((cover.nlo[p], cover.nhi[p]) if cover.nlo[p] >= 0 else (end, end))
        else:
            out.append((start, end))
        prev = end
    return out


def _checked(text, tokens) -> list[str]:
    if not isinstance(text, str):
        raise TypeError(f"Expected text as a str, got {type(text).__name__}; fix by "
                        "passing the one text the tokens were produced from.")
    if isinstance(tokens, (str, bytes)):
        raise TypeError("Expected tokens as a sequence of str, got one "
                        f"{type(tokens).__name__}; fix by passing a list of token strings.")
    tokens = list(tokens)
    for i, tok in enumerate(tokens):
        if not isinstance(tok, str):
            raise TypeError(f"Expected every token as a str, got {type(tok).__name__} "
                            f"{tok!r}, at token {i}; fix by passing token strings "
                            "(decode token ids with the tokenizer first).")
    try:  # one pass over all of them; the token is looked for only on failure
        "".join(tokens).encode("utf-8")
    except UnicodeEncodeError:
        for i, tok in enumerate(tokens):
            _no_surrogate(tok, i)
    return tokens


def _no_surrogate(tok: str, i: int) -> None:
    try:
        tok.encode("utf-8")
    except UnicodeEncodeError as exc:
        cp = ord(tok[exc.start])
        raise ValueError(
            f"Expected token strings of valid Unicode, got a lone surrogate U+{cp:04X} "
            f"at character {exc.start} of token {i} ({tok!r}); fix by decoding the token "
            "ids with the tokenizer (a character split across tokens is kept as bytes, "
            "as byte-level BPE writes it) rather than decoding each token's bytes "
            "alone with errors='surrogateescape'.") from None


def _report(scheme, pieces, owner, kinds, cover, tokens, nt, **counts) -> AlignmentReport:
    kind: dict[int, str] = {}
    for p in range(len(pieces)):
        t = owner[p]
        if kinds[p] == UNKNOWN:
            k = "unknown"
        elif kinds[p] == SPECIAL:
            k = "special"
        elif cover.nlo[p] >= 0:
            k = "placed"
        elif cover.lo[p] >= 0:  # only whitespace of it is in the text
            k = "whitespace"
        else:  # nothing of it is in the text (an empty token included)
            k = "unplaced"
        if t not in kind or kind[t] == "special":  # a glued special keeps the token's kind
            kind[t] = k
    tally = {"placed": 0, "whitespace": 0, "special": 0, "unplaced": 0, "unknown": 0}
    first: list[tuple[int, str]] = []
    for t in range(len(tokens)):
        tally[kind[t]] += 1
        if kind[t] == "unplaced" and len(first) < 5:
            first.append((t, tokens[t]))
    uncovered, stretches = _uncovered(nt, cover)
    return AlignmentReport(scheme, tally["placed"], tally["whitespace"], tally["special"],
                           tally["unplaced"], tuple(first), unknown=tally["unknown"],
                           uncovered=uncovered, first_uncovered=tuple(stretches[:5]),
                           **counts)


def _uncovered(nt: str, cover: Cover) -> tuple[int, list[tuple[int, int]]]:
    """Non-whitespace characters no token covers, and their stretches."""
    n = len(nt)
    delta = [0] * (n + 1)
    for lo, hi in zip(cover.lo, cover.hi):
        if lo >= 0 and hi > lo:
            delta[lo] += 1
            delta[hi] -= 1
    count, depth = 0, 0
    stretches: list[tuple[int, int]] = []
    run = end = -1
    for i in range(n):
        depth += delta[i]
        if depth == 0 and nt[i] != " ":
            count += 1
            run, end = (i if run < 0 else run), i + 1
        elif depth > 0 and run >= 0:  # a covered character ends the stretch
            stretches.append((run, end))
            run = -1
    if run >= 0:
        stretches.append((run, end))
    return count, stretches
