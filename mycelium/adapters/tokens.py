"""``align_tokens``: token strings as LLMs emit them onto code-point offsets of the text
(SPEC section 9, "Aligning token strings")."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from ..errors import SpanValidationError
from ._decode import SCHEMES, detect_scheme, split_glued, units, ws_table

__all__ = ["align_tokens", "AlignmentReport"]

_RUNS = re.compile(r" +|[^ ]+")
_PROBE = 32  # non-whitespace characters of look-ahead when the text skips ahead
_WINDOW = 64  # how far a short probe may jump
_CANDIDATES = 16  # occurrences of a probe tried for one consistent to the text's end


@dataclass(frozen=True)
class AlignmentReport:
    """What ``align_tokens`` did with each token class.

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
    """

    scheme: str
    placed: int
    whitespace: int
    special: int
    unplaced: int
    first_unplaced: tuple = field(default=())

    def as_dict(self) -> dict:
        """The report as a plain dict."""
        return {"scheme": self.scheme, "placed": self.placed,
                "whitespace": self.whitespace, "special": self.special,
                "unplaced": self.unplaced, "first_unplaced": list(self.first_unplaced)}


class _Cover:
    """Per-piece covered range (any character) and non-whitespace range."""

    __slots__ = ("lo", "hi", "nlo", "nhi")

    def __init__(self, n: int) -> None:
        self.lo = [-1] * n
        self.hi = [-1] * n
        self.nlo = [-1] * n
        self.nhi = [-1] * n

    def save(self, first: int, last: int) -> list[tuple[int, int, int, int]]:
        return [(self.lo[p], self.hi[p], self.nlo[p], self.nhi[p])
                for p in range(first, last + 1)]

    def restore(self, first: int, saved: list[tuple[int, int, int, int]]) -> None:
        for p, (lo, hi, nlo, nhi) in enumerate(saved, start=first):
            self.lo[p], self.hi[p], self.nlo[p], self.nhi[p] = lo, hi, nlo, nhi

    def add(self, first: int, last: int, s: int, e: int, ns: int, ne: int) -> None:
        for p in range(first, last + 1):
            if self.lo[p] < 0:
                self.lo[p] = s
            self.hi[p] = e
            if ns < ne:
                if self.nlo[p] < 0:
                    self.nlo[p] = ns
                self.nhi[p] = ne


class _Text:
    """The normalised text (White_Space as ' ') and, built on first need, its skeleton
    (the non-whitespace characters with their positions)."""

    def __init__(self, text: str) -> None:
        self.nt = text.translate(ws_table())
        self.n = len(text)
        self._skel: tuple[str, list[int]] | None = None

    def skeleton(self) -> tuple[str, list[int]]:
        if self._skel is None:
            pos = [i for i, c in enumerate(self.nt) if c != " "]
            self._skel = ("".join(self.nt[i] for i in pos), pos)
        return self._skel

    def skip_ws(self, c: int) -> int:
        nt, n = self.nt, self.n
        while c < n and nt[c] == " ":
            c += 1
        return c


def _rest(stream, k: int, run: str, limit: int | None = None) -> str:
    """``run`` plus the non-whitespace content of the units after unit ``k`` (the first
    ``limit`` characters of it, when given)."""
    parts, size = [run], len(run)
    for j in range(k + 1, len(stream)):
        if limit is not None and size >= limit:
            break
        text, _, _, special = stream[j]
        if special:
            continue
        more = text.translate(ws_table()).replace(" ", "")
        parts.append(more)
        size += len(more)
    joined = "".join(parts)
    return joined if limit is None else joined[:max(limit, len(run))]


def _resync(tx: _Text, c: int, stream, k: int, run: str, after: str) -> int:
    """Where (skeleton index) ``run`` starts when the text skips ahead of the tokens, or
    -1 when it is not in the text ahead.

    Probes, longest first: this run, the rest of its unit (``after``, whitespace
    removed) and the next tokens' content; its first 8 characters; the run alone.
    Of a probe's occurrences, the first after which the whole rest of the text is the
    tokens' content (the text ends within the tokens) wins, so that an echoed prompt
    repeating the answer does not capture it; otherwise the first occurrence, where a
    shorter probe may only jump a short way.
    """
    skel, pos = tx.skeleton()
    q0 = bisect.bisect_left(pos, c)
    long = _rest(stream, k, run + after, _PROBE)
    rest = None
    for probe, window in ((long, None), (long[:max(len(run), 8)], _WINDOW), (run, _WINDOW)):
        q = skel.find(probe, q0)
        if q < 0:
            continue
        rest = _rest(stream, k, run + after) if rest is None else rest
        cand = q
        for _ in range(_CANDIDATES):
            if rest.startswith(skel[cand:]):
                return cand
            cand = skel.find(probe, cand + 1)
            if cand < 0:
                break
        if window is None or pos[q] - c <= window:
            return q
    return -1


def _match_runs(tx: _Text, c: int, u: str, k: int, stream, cover: _Cover,
                first: int, last: int) -> int:
    """Match a unit run by run (the slow path); returns the new cursor.

    A unit none of whose non-whitespace runs is in the text is absent as a whole: the
    whitespace it matched on the way is given back (to the tokens after it).
    """
    nt, n = tx.nt, tx.n
    saved = cover.save(first, last), c
    found = missing = 0
    for m in _RUNS.finditer(u):
        run = m.group()
        if run[0] == " ":
            e = c
            while e < n and e - c < len(run) and nt[e] == " ":
                e += 1
            if e > c:
                cover.add(first, last, c, e, 0, 0)
                c = e
            continue
        c2 = tx.skip_ws(c)
        if nt.startswith(run, c2):
            cover.add(first, last, c2, c2 + len(run), c2, c2 + len(run))
            c = c2 + len(run)
            found += 1
            continue
        q = _resync(tx, c, stream, k, run, u[m.end():].replace(" ", ""))
        if q < 0:
            missing += 1
            continue  # content absent from the text: not guessed
        skel, pos = tx.skeleton()
        s, e = pos[q], pos[q + len(run) - 1] + 1
        cover.add(first, last, s, e, s, e)
        c = e
        found += 1
    if missing and not found:
        cover.restore(first, saved[0])
        return saved[1]
    return c


def _cover_stream(tx: _Text, stream, npieces: int) -> _Cover:
    cover = _Cover(npieces)
    nt, c = tx.nt, 0
    for k, (text, first, last, special) in enumerate(stream):
        u = text.translate(ws_table())
        if special:
            c2 = tx.skip_ws(c)
            if nt.startswith(u, c2):  # its literal string stands in the text here
                cover.add(first, last, c2, c2 + len(u), c2, c2 + len(u))
                c = c2 + len(u)
            continue
        if nt.startswith(u, c):
            e = c + len(u)
            stripped = u.strip(" ")
            if stripped:
                ns = c + len(u) - len(u.lstrip(" "))
                cover.add(first, last, c, e, ns, ns + len(stripped))
            else:
                cover.add(first, last, c, e, 0, 0)
            c = e
        else:
            c = _match_runs(tx, c, u, k, stream, cover, first, last)
    return cover


def _offsets(tx: _Text, cover: _Cover, trim: bool) -> list[tuple[int, int]]:
    nt, n = tx.nt, tx.n
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


def align_tokens(text: str, tokens, *, trim: bool = True, scheme: str | None = None,
                 strict: bool = False, report: bool = False):
    """Code-point offsets of token strings as a tokenizer emitted them.

    Parameters
    ----------
    text : str
        The text the offsets refer to.
    tokens : sequence of str
        Token strings in order: byte-level BPE (GPT-2's byte alphabet, 'Ġ' = space),
        SentencePiece ('▁' = space, '<0xNN>' byte tokens), WordPiece ('##'
        continuations) or plain substrings; special tokens anywhere.
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

    Returns
    -------
    list of (int, int), or (list, AlignmentReport) when ``report=True``
        One half-open ``(start, end)`` pair of code points per token.

    Raises
    ------
    SpanValidationError
        With ``strict=True``, when a non-special token's content is not in the text.
    ValueError
        For an unknown ``scheme``.

    Notes
    -----
    A token covers every character any of its bytes belongs to (tokens that split one
    character all cover it). Any Unicode White_Space matches any other; text the tokens
    lack (an echoed prompt) is skipped, content the text lacks is not guessed. Special
    and unplaced tokens get ``(p, p)``, p the previous token's tiling end (0 at the
    start). Text whitespace no token covers goes to the following token when tiling,
    whitespace ending the text to the last covering token. SPEC section 9 states every
    rule.

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
    """
    if scheme is not None and scheme not in SCHEMES:
        raise ValueError(f"Expected scheme one of {', '.join(SCHEMES)} or None, got "
                         f"{scheme!r}; fix by passing one of them.")
    tokens = _checked(text, tokens)
    pieces, owner, special = split_glued(tokens)
    used = scheme or detect_scheme(tokens)
    stream = units(pieces, special, used)
    tx = _Text(text)
    cover = _cover_stream(tx, stream, len(pieces))
    piece_off = _offsets(tx, cover, trim)
    out = [piece_off[p] for p in range(len(pieces)) if p == 0 or owner[p] != owner[p - 1]]
    if not (strict or report):
        return out
    rep = _report(used, pieces, owner, special, cover, tokens)
    if strict and rep.unplaced:
        i, tok = rep.first_unplaced[0]
        raise SpanValidationError(
            f"Expected every token's content in the text, got {rep.unplaced} token(s) "
            f"not found, at token {i} ({tok!r}); fix by passing the text the tokens were "
            "produced from, or strict=False to give them zero-length offsets.",
            side="text", example=0)
    return (out, rep) if report else out


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
    return tokens


def _report(scheme, pieces, owner, special, cover, tokens) -> AlignmentReport:
    kind: dict[int, str] = {}
    for p in range(len(pieces)):
        t = owner[p]
        if special[p]:
            k = "special"
        elif cover.nlo[p] >= 0:
            k = "placed"
        elif cover.lo[p] >= 0:  # only whitespace of it is in the text
            k = "whitespace"
        else:  # nothing of it is in the text (an empty token included)
            k = "unplaced"
        if t not in kind or kind[t] == "special":  # a glued special keeps the token's kind
            kind[t] = k
    counts = {"placed": 0, "whitespace": 0, "special": 0, "unplaced": 0}
    first: list[tuple[int, str]] = []
    for t in range(len(tokens)):
        counts[kind[t]] += 1
        if kind[t] == "unplaced" and len(first) < 5:
            first.append((t, tokens[t]))
    return AlignmentReport(scheme, counts["placed"], counts["whitespace"],
                           counts["special"], counts["unplaced"], tuple(first))
