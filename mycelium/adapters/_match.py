"""The walk of ``align_tokens``: the tokens' content matched along the text, resuming by
the resync rule where the two part, and the stretches unknown tokens stand for (SPEC
section 9, "Aligning token strings")."""

from __future__ import annotations

import bisect
import re

from ._decode import ws_table
from ._unknown import alone

__all__ = ["CONTENT", "SPECIAL", "UNKNOWN", "Cover", "walk"]

CONTENT, SPECIAL, UNKNOWN = 0, 1, 2
_RUNS = re.compile(r" +|[^ ]+")
MATCH = 8  # non-whitespace characters the next tokens' content must match to resume
_CANDIDATES = 32  # next runs a resync tries (the first of them placed, those before skipped)


class Cover:
    """Per piece: the covered range (any character) and the non-whitespace range, -1
    while nothing is covered."""

    __slots__ = ("lo", "hi", "nlo", "nhi")

    def __init__(self, n: int) -> None:
        self.lo = [-1] * n
        self.hi = [-1] * n
        self.nlo = [-1] * n
        self.nhi = [-1] * n

    def add(self, first: int, last: int, s: int, e: int, ns: int, ne: int) -> None:
        lo, hi, nlo, nhi = self.lo, self.hi, self.nlo, self.nhi
        for p in range(first, last + 1):
            if lo[p] < 0 or s < lo[p]:
                lo[p] = s
            if e > hi[p]:
                hi[p] = e
            if ns < ne:
                if nlo[p] < 0 or ns < nlo[p]:
                    nlo[p] = ns
                if ne > nhi[p]:
                    nhi[p] = ne


class _Tokens:
    """The content units split into whitespace and non-whitespace runs, and (built on
    first need) the tokens' skeleton: their non-whitespace content in order, where each
    run starts in it, and where unknown tokens interrupt it."""

    def __init__(self, stream) -> None:
        self.stream = stream
        # One translate over all the content (whitespace becomes ' ', one character
        # for one), then cut back into units: about 25% faster than a call per unit.
        raw = [u[0] if not u[3] else "" for u in stream]
        joined = "".join(raw).translate(ws_table())
        self.texts, at = [], 0
        for part in raw:
            self.texts.append(joined[at:at + len(part)])
            at += len(part)
        self._runs: dict[int, list[str]] = {}
        self._skel: tuple[str, list[int], list[int]] | None = None

    def runs(self, k: int) -> list[str]:
        got = self._runs.get(k)
        if got is None:
            got = self._runs[k] = _RUNS.findall(self.texts[k])
        return got

    def skeleton(self) -> tuple[str, list[int], list[int]]:
        """``(T, start, breaks)``: T the non-whitespace content, ``start[k]`` where unit
        k's starts in T, ``breaks`` the positions of T where an unknown token stands."""
        if self._skel is None:
            parts, start, breaks, size = [], [], [], 0
            for k, unit in enumerate(self.stream):
                start.append(size)
                if unit[3] == UNKNOWN:
                    breaks.append(size)
                elif not unit[3]:
                    more = self.texts[k].replace(" ", "")
                    parts.append(more)
                    size += len(more)
            self._skel = ("".join(parts), start, breaks)
        return self._skel

    def candidates(self, k: int, r: int):
        """The next non-whitespace runs from run ``r`` of unit ``k`` on, up to the next
        unknown token: ``(unit, run, offset in T)``, at most ``_CANDIDATES``."""
        skel, start, _ = self.skeleton()
        out = []
        for k2 in range(k, len(self.stream)):
            kind = self.stream[k2][3]
            if kind == UNKNOWN and k2 > k:
                break
            if kind:
                continue
            t = start[k2]
            for r2, run in enumerate(self.runs(k2)):
                if run[0] == " ":
                    continue
                if k2 > k or r2 >= r:
                    out.append((k2, r2, t))
                    if len(out) == _CANDIDATES:
                        return out
                t += len(run)
        return out

    def pattern(self, t: int, size: int) -> str:
        """The content to match from offset ``t`` of T, where a run of ``size``
        characters starts: ``MATCH`` characters or the run if longer, fewer when the
        tokens end or an unknown token comes first."""
        skel, _, breaks = self.skeleton()
        i = bisect.bisect_right(breaks, t)
        stop = breaks[i] if i < len(breaks) else len(skel)
        return skel[t:min(t + max(MATCH, size), stop)]


class _Walk:
    """The cursor over the text (``nt``: White_Space written as ' ') and what was
    covered, resynced and left to unknown tokens."""

    def __init__(self, nt: str, stream, npieces: int, word_starts=frozenset()) -> None:
        self.nt, self.n = nt, len(nt)
        self.word_starts = word_starts
        self.toks = _Tokens(stream)
        self.cover = Cover(npieces)
        self.c = 0
        self.resyncs = 0
        self.unknown: list[tuple[list[int], int, int]] = []  # (pieces, start, end)
        self.pending: tuple[list[int], int] | None = None  # unknown pieces, start
        self.deferred: list[tuple[int, int, int]] = []  # whitespace runs awaiting a place
        self._skel: tuple[str, list[int]] | None = None
        self._memo: dict[int, tuple[int, int, bool]] = {}

    def skeleton(self) -> tuple[str, list[int]]:
        if self._skel is None:
            pos = [i for i, ch in enumerate(self.nt) if ch != " "]
            self._skel = ("".join(self.nt[i] for i in pos), pos)
        return self._skel

    def skip_ws(self, c: int) -> int:
        nt, n = self.nt, self.n
        while c < n and nt[c] == " ":
            c += 1
        return c

    def earliest(self, t: int, size: int, q0: int, word: bool) -> tuple[int, bool]:
        """The earliest skeleton index >= q0 from which the content at offset ``t`` of
        the tokens (a run of ``size`` characters first) matches ``MATCH`` characters or
        to the end of the tokens (True), else to the end of the text, the run itself
        inside it (False); ``(-1, False)`` if neither. ``word``: the run starts a word
        (a WordPiece token without '##'), so only where a word starts."""
        memo = self._memo.get(t)
        if memo is not None and memo[0] <= q0 and (memo[1] < 0 or memo[1] >= q0):
            return memo[1], memo[2]
        pat = self.toks.pattern(t, size)
        skel, pos = self.skeleton()
        q, full = skel.find(pat, q0), True
        while word and q >= 0 and not self.word_start(pos[q]):
            q = skel.find(pat, q + 1)
        if q < 0:  # the text ends within the pattern
            full = False
            for rest in range(min(len(pat) - 1, len(skel) - q0), size - 1, -1):
                at = len(skel) - rest
                if rest and pat.startswith(skel[at:]) and (
                        not word or self.word_start(pos[at])):
                    q = at
                    break
        self._memo[t] = (q0, q, full)
        return q, full

    def resync(self, k: int, r: int) -> tuple[int, int, int] | None:
        """Where the walk resumes from run ``r`` of unit ``k``: ``(unit, run, text
        position)`` of the run placed first; None when no next run is in the text ahead.

        The run itself goes to the earliest position from which its and the next
        tokens' content matches. When it matches only where the text ends, or nowhere,
        its content is taken as one the text lacks: the next runs are tried too, and
        the earliest text position wins (the fewest runs left out on a tie), so that a
        short token never jumps to the end past a nearer place of the next ones.
        """
        skel, pos = self.skeleton()
        q0 = bisect.bisect_left(pos, self.c)
        best: tuple[int, int, int] | None = None
        for k2, r2, t in self.toks.candidates(k, r):
            q, full = self.earliest(t, len(self.toks.runs(k2)[r2]), q0,
                                    r2 == 0 and k2 in self.word_starts)
            if q >= 0 and full and (k2, r2) == (k, r):
                return k, r, pos[q]
            if q >= 0 and (best is None or q < best[2]):
                best = (k2, r2, q)
                if q == q0:
                    break
        return None if best is None else (best[0], best[1], pos[best[2]])

    def word_start(self, p: int) -> bool:
        """Whether a word begins at text position ``p``: after whitespace, or at or
        after a character that is a word of its own (a CJK ideograph, punctuation)."""
        nt = self.nt
        return p == 0 or nt[p - 1] == " " or alone(nt[p - 1]) or alone(nt[p])

    def claim(self, s: int) -> int:
        """Give the deferred whitespace runs the whitespace just before ``s`` (the last
        run the nearest), not before the cursor; returns where the claimed part starts."""
        nt, t = self.nt, s
        for first, last, size in reversed(self.deferred):
            e = t
            while t > self.c and e - t < size and nt[t - 1] == " ":
                t -= 1
            if t < e:
                self.cover.add(first, last, t, e, 0, 0)
        self.deferred.clear()
        return t

    def put(self, first: int, last: int, s: int, run: str) -> None:
        """Place the non-whitespace ``run`` at text position ``s``."""
        if self.nt.startswith(run, s):
            e = s + len(run)
        else:  # placed through the skeleton, across whitespace of the text
            _, pos = self.skeleton()
            q = bisect.bisect_left(pos, s)
            e = pos[min(q + len(run), len(pos)) - 1] + 1
        start = self.claim(s)
        if self.pending is not None:
            self.unknown.append((self.pending[0], self.pending[1], start))
            self.pending = None
        self.cover.add(first, last, s, e, s, e)
        self.c = e

    def trailing_ws(self, first: int, last: int, size: int) -> None:
        """A whitespace run that ends its unit takes the text whitespace at the cursor."""
        nt, c = self.nt, self.c
        e = c
        while e < self.n and e - c < size and nt[e] == " ":
            e += 1
        if e > c:
            self.cover.add(first, last, c, e, 0, 0)
            self.c = e

    def special(self, k: int) -> None:
        """A special token covers its literal string where it stands in the text."""
        text, first, last, _ = self.toks.stream[k]
        if self.pending is not None:
            return
        u = text.translate(ws_table())
        s = self.skip_ws(self.c)
        if u and self.nt.startswith(u, s):
            self.cover.add(first, last, s, s + len(u), s, s + len(u))
            self.c = s + len(u)

    def unknown_token(self, first: int, last: int) -> None:
        if self.pending is None:
            self.pending = ([], self.c)
        self.pending[0].extend(range(first, last + 1))

    def unit(self, k: int, r: int, forced: tuple[int, int] | None):
        """Match unit ``k`` from run ``r`` on (``forced``: a run already given its
        place); returns ``(unit, run, forced)`` to go on with."""
        _, first, last, _ = self.toks.stream[k]
        runs = self.toks.runs(k)
        last_nws = max((i for i, run in enumerate(runs) if run[0] != " "), default=-1)
        placed = missing = 0
        if self.pending is None:
            self.deferred.clear()
        for i in range(r, len(runs)):
            run = runs[i]
            if run[0] == " ":
                if i < last_nws or self.pending is not None:
                    self.deferred.append((first, last, len(run)))
                elif placed or not missing:
                    self.trailing_ws(first, last, len(run))
                continue
            if forced is not None and forced[0] == i:
                self.put(first, last, forced[1], run)
                placed += 1
                continue
            s = self.skip_ws(self.c)
            if self.pending is None and self.nt.startswith(run, s):
                self.put(first, last, s, run)
                placed += 1
                continue
            found = self.resync(k, i)
            if found is None:
                missing += 1
                if self.pending is None:
                    self.deferred.clear()
                continue
            k2, r2, s = found
            if self.pending is None:
                self.resyncs += 1
            if (k2, r2) == (k, i):
                self.put(first, last, s, run)
                placed += 1
                continue
            runs2 = self.toks.runs(k2)
            start = r2 - 1 if r2 > 0 and runs2[r2 - 1][0] == " " else r2
            return k2, start, (r2, s)
        return k + 1, 0, None

    def finish(self) -> None:
        if self.pending is not None:
            self.unknown.append((self.pending[0], self.pending[1], self.n))
            self.pending = None


def walk(nt: str, stream, npieces: int, word_starts=frozenset()) -> _Walk:
    """Walk the content ``stream`` (``units`` of the pieces) along ``nt``, the text with
    its White_Space written as ' '; ``word_starts``: the units that begin a word (those
    of WordPiece tokens without '##'), which resume only where a word of the text
    begins."""
    w = _Walk(nt, stream, npieces, word_starts)
    texts, cover = w.toks.texts, w.cover
    lo, hi, nlo, nhi = cover.lo, cover.hi, cover.nlo, cover.nhi
    k, r, forced = 0, 0, None
    while k < len(stream):
        _, first, last, kind = stream[k]
        if kind == SPECIAL:
            w.special(k)
            k += 1
            continue
        if kind == UNKNOWN:
            w.unknown_token(first, last)
            k += 1
            continue
        u, c = texts[k], w.c
        if forced is None and r == 0 and w.pending is None and nt.startswith(u, c):
            # the fast path: the unit stands as it is at the cursor
            e = c + len(u)
            if first == last and lo[first] < 0 and u[0] != " " and u[-1] != " ":
                lo[first], hi[first], nlo[first], nhi[first] = c, e, c, e
            else:
                stripped = u.strip(" ")
                ns = e - len(u.lstrip(" "))
                cover.add(first, last, c, e, ns, ns + len(stripped))
            w.c = e
            k += 1
            continue
        k, r, forced = w.unit(k, r, forced)
    w.finish()
    return w
