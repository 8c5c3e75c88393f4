"""Predicted phrases (RAGTruth-style detectors) and inline tags (PsiloQA's ``[HAL]``,
FAVA-style ``<entity>``, ``<mark>``/``<delete>``) to code-point spans."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import SpanValidationError
from ._checks import check_text, describe

__all__ = ["anchor_phrases", "AnchorReport", "parse_tagged"]

OCCURRENCES = ("all", "first", "unique")


@dataclass(frozen=True)
class AnchorReport:
    """Phrases that ``anchor_phrases`` could not anchor to one place.

    Attributes
    ----------
    not_found : tuple of (int, str)
        ``(index, phrase)`` of each phrase absent from the text (an empty phrase too).
    ambiguous : tuple of (int, str, int)
        ``(index, phrase, occurrences)`` of each phrase found more than once.
    """

    not_found: tuple = ()
    ambiguous: tuple = ()

    @property
    def ok(self) -> bool:
        """True when every phrase was found exactly once."""
        return not self.not_found and not self.ambiguous


def _pattern(phrase: str) -> re.Pattern | None:
    words = phrase.split()
    if not words:
        return None
    # any whitespace run in the phrase matches any whitespace run in the text
    return re.compile(r"\s+".join(re.escape(w) for w in words))


def anchor_phrases(text: str, phrases, *, occurrence: str = "all"):
    """Spans of predicted phrases in the text, with a report of the ones that are absent
    or found more than once.

    Parameters
    ----------
    text : str
        The text the phrases were taken from.
    phrases : sequence of str
        Predicted phrases. Edge whitespace is ignored and any whitespace run inside a
        phrase matches any whitespace run of the text; letters match exactly (case
        included).
    occurrence : {"all", "first", "unique"}, default "all"
        Which occurrences become spans: every non-overlapping one, the first one, or
        only a phrase found exactly once (an ambiguous phrase then gives no span).

    Returns
    -------
    spans : list of (int, int)
        Half-open code-point spans, phrase by phrase, each phrase's in text order.
    report : AnchorReport
        The phrases not found and the ambiguous ones, whatever ``occurrence`` is: a
        first match is never taken silently.

    Raises
    ------
    TypeError
        For a ``text`` that is not a str, ``phrases`` given as one str (it would be read
        letter by letter) or not a list, or a phrase that is not a str (None included).
    ValueError
        For an unknown ``occurrence``.

    Examples
    --------
    >>> import mycelium
    >>> text = "Paris is in France. Paris has 2 million people."
    >>> spans, rep = mycelium.anchor_phrases(text, ["Paris", "2  million", "Berlin"])
    >>> spans
    [(0, 5), (20, 25), (30, 39)]
    >>> rep.not_found, rep.ambiguous
    (((2, 'Berlin'),), ((0, 'Paris', 2),))
    >>> mycelium.anchor_phrases(text, ["Paris", "France"], occurrence="unique")[0]
    [(12, 18)]
    """
    if occurrence not in OCCURRENCES:
        raise ValueError(f"Expected occurrence one of {', '.join(map(repr, OCCURRENCES))}, "
                         f"got {occurrence!r}; fix by passing one of them.")
    text = check_text(text)
    phrases = _phrase_list(phrases)
    spans, not_found, ambiguous = [], [], []
    for i, phrase in enumerate(phrases):
        pattern = _pattern(phrase)
        found = [] if pattern is None else [m.span() for m in pattern.finditer(text)]
        if not found:
            not_found.append((i, phrase))
            continue
        if len(found) > 1:
            ambiguous.append((i, phrase, len(found)))
            if occurrence == "unique":
                continue
        spans += found[:1] if occurrence == "first" else found
    return spans, AnchorReport(tuple(not_found), tuple(ambiguous))


def _phrase_list(phrases) -> list[str]:
    """The phrases as a list of str; a ``TypeError`` for a lone str (which would be read
    letter by letter), a batch, or an item that is not a str."""
    if phrases is None or isinstance(phrases, (str, bytes, Mapping)) or not isinstance(
            phrases, Iterable):
        fix = (f"wrapping it in a list: [{phrases!r}]" if isinstance(phrases, str) else
               "passing a list of the predicted phrases, e.g. ['in 1932']")
        raise TypeError(f"Expected phrases as a list of str, got {describe(phrases)}, at "
                        f"phrases; fix by {fix}.")
    out = list(phrases)
    for i, phrase in enumerate(out):
        if not isinstance(phrase, str):
            batch = isinstance(phrase, (list, tuple)) and all(isinstance(p, str)
                                                                for p in phrase)
            fix = ("calling once per text with its own phrases" if batch else
                   "dropping the missing phrases or passing each as a str (a phrase "
                   "absent from the text is reported, not an error)")
            raise TypeError(f"Expected each phrase as a str, got {describe(phrase)}, at "
                            f"phrases[{i}]; fix by {fix}.")
    return out


def _tag_regex(tags) -> re.Pattern:
    names = "|".join(re.escape(t) for t in sorted(tags, key=len, reverse=True))
    return re.compile(rf"\[(/?)({names})\]|<(/?)({names})>")


def _tag_error(expected: str, got: str, at: int, fix: str) -> SpanValidationError:
    return SpanValidationError(f"Expected {expected}, got {got}, at character {at} of the "
                               f"tagged text; fix by {fix}.", side="text", example=0)


def parse_tagged(tagged_text: str, *, tags=("HAL",), nested: bool = False):
    """The clean text and the tagged spans of a text with inline tags.

    Parameters
    ----------
    tagged_text : str
        Text with inline tags, written ``[name]…[/name]`` (PsiloQA's ``[HAL]``) or
        ``<name>…</name>`` (FAVA-style ``<entity>``, ``<mark>``, ``<delete>``).
    tags : sequence of str, default ("HAL",)
        The tag names to parse (case-sensitive); any other bracketed or angled text
        stays in the clean text as written.
    nested : bool, default False
        Allow tags inside tags (FAVA's ``<entity><delete>…</delete></entity>``): each
        closing tag must then close the innermost open one.

    Returns
    -------
    text : str
        The text with the tags removed.
    spans : list of dict
        ``{"start", "end", "tag"}`` per tagged stretch, code points of ``text``, in
        the order the tags open (a span list mycelium accepts as is; ``tag`` types it
        for a breakdown).

    Raises
    ------
    SpanValidationError
        For a tag opened inside another (unless ``nested``), a closing tag without its opening one or of
        another name or bracket style, or a tag left open; the message gives the
        character position in the tagged text.
    ValueError
        For an empty ``tags``.

    Examples
    --------
    >>> import mycelium
    >>> mycelium.parse_tagged("Paris is in [HAL]Germany[/HAL].")
    ('Paris is in Germany.', [{'start': 12, 'end': 19, 'tag': 'HAL'}])
    >>> text, spans = mycelium.parse_tagged(
    ...     "It is <mark>red</mark>, <delete>blue</delete>.", tags=["mark", "delete"])
    >>> text, [(s["start"], s["end"], s["tag"]) for s in spans]
    ('It is red, blue.', [(6, 9, 'mark'), (11, 15, 'delete')])
    >>> mycelium.parse_tagged("<entity><delete>A</delete><mark>B</mark></entity>!",
    ...                       tags=["entity", "mark", "delete"], nested=True)[1]
    [{'start': 0, 'end': 2, 'tag': 'entity'}, {'start': 0, 'end': 1, 'tag': 'delete'}, {'start': 1, 'end': 2, 'tag': 'mark'}]
    """
    tags = [tags] if isinstance(tags, str) else list(tags)
    if not tags:
        raise ValueError("Expected at least one tag name in tags, got none; fix by "
                         "passing tags=['HAL'] (or the names your data uses).")
    parts: list[str] = []
    spans: list = []
    pos, out_len = 0, 0
    stack: list = []  # (name, style, position in the tagged text, start, index in spans)
    for m in _tag_regex(tags).finditer(tagged_text):
        parts.append(tagged_text[pos:m.start()])
        out_len += m.start() - pos
        pos = m.end()
        square = m.group(2) is not None
        closing, name = (m.group(1), m.group(2)) if square else (m.group(3), m.group(4))
        style = "[]" if square else "<>"
        written = m.group()
        if not closing:
            if stack and not nested:
                raise _tag_error("tags that do not nest", f"{written} inside "
                                 f"{_written(stack[-1])} opened at character "
                                 f"{stack[-1][2]}", m.start(),
                                 "closing each tag before the next opens")
            stack.append((name, style, m.start(), out_len, len(spans)))
            spans.append(None)  # filled when it closes: spans stay in opening order
            continue
        if not stack or stack[-1][:2] != (name, style):
            got = (f"{written} with no tag open" if not stack else
                   f"{written} closing {_written(stack[-1])} opened at character "
                   f"{stack[-1][2]}")
            raise _tag_error("each closing tag to match the open one", got, m.start(),
                             "balancing the tags")
        top = stack.pop()
        spans[top[4]] = {"start": top[3], "end": out_len, "tag": name}
    if stack:
        raise _tag_error("every tag closed", f"{_written(stack[-1])} still open at the end",
                         stack[-1][2], "closing it")
    parts.append(tagged_text[pos:])
    return "".join(parts), spans


def _written(open_tag) -> str:
    name, style = open_tag[0], open_tag[1]
    return f"[{name}]" if style == "[]" else f"<{name}>"
