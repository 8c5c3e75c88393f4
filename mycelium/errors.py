"""The exceptions mycelium raises for bad data (bad types and bad options use the built-ins)."""

from __future__ import annotations

__all__ = ["MyceliumError", "SpanValidationError", "UndefinedMetricWarning",
           "EmptySpanWarning"]


class MyceliumError(Exception):
    """Base class of every error that is specific to mycelium."""


class SpanValidationError(MyceliumError, ValueError):
    """A span, a span set or a text does not satisfy the span contract.

    The message says what was expected, what was got, where (side, example index,
    span index) and how to fix it. The same facts are kept as attributes so that
    callers can react programmatically.

    Attributes
    ----------
    side : str or None
        ``"references"``, ``"predictions"`` or ``"text"``.
    example : int or None
        Position of the example in the batch (0 for a single example).
    span : int or None
        Position of the span inside the example's span list, as given.
    problem : str
        What is wrong, without the location: the message after its leading
        ``"<side> example <k>[, span <j>]"``, so that a caller (the command line) can
        say where in its own terms.
    fix : str or None
        A key naming the remedy when it is an option of the caller (``"missing"``: a
        null span list is accepted by ``missing="empty"`` or ``"drop"``), so that each
        face can give it in its own spelling.
    """

    def __init__(self, message: str, *, side: str | None = None,
                 example: int | None = None, span: int | None = None,
                 problem: str | None = None, fix: str | None = None) -> None:
        super().__init__(message)
        self.side = side
        self.example = example
        self.span = span
        self.problem = _without_location(message, side, example, span) if problem is None \
            else problem
        self.fix = fix

    def at(self, example: int) -> SpanValidationError:
        """The same error told at another example position (a face that scored a part of
        its input, or the rows of a frame, says where in its own terms); the span or
        token index is kept."""
        if self.side is None:
            return self
        item = "token" if self.side in ("token_offsets", "token_scores") or (
            self.side == "soft_predictions" and "token" in str(self)) else "span"
        where = f"{self.side} example {example}" + ("" if self.span is None else
                                                    f", {item} {self.span}")
        return SpanValidationError(f"{where}: {self.problem}", side=self.side,
                                   example=example, span=self.span, problem=self.problem,
                                   fix=self.fix)


def _without_location(message: str, side, example, span) -> str:
    where = f"{side} example {example}" + ("" if span is None else f", span {span}")
    if side is None or example is None or not message.startswith(where):
        return message
    rest = message[len(where):]
    return rest[2:] if rest.startswith(": ") else rest.lstrip()


class UndefinedMetricWarning(UserWarning):
    """A precision or recall was undefined (0/0) and scored as 0.0 under
    ``zero_division="warn"``; the message names the measure and how many examples (or,
    for micro, that the pooled value) were undefined — as scikit-learn warns.

    Attributes
    ----------
    metric, measure : str
        What was undefined.
    where : str
        How many, in words (``"2 of 5 examples are"``, ``"the pooled (micro) value is"``).
    """

    def __init__(self, metric: str, measure: str, where: str) -> None:
        super().__init__(f"{metric} {measure}: {where} undefined (0/0), scored as 0.0 "
                         "(zero_division='warn'); pass zero_division=0.0, 1.0 or 'nan' to "
                         "choose a value and silence this.")
        self.metric, self.measure, self.where = metric, measure, where


def _key(name: str) -> str:
    """A name as a user may type it, reduced to what tells names apart: case, hyphens,
    underscores, spaces and dots left out, ``+`` read as ``p`` ("Mu-SHROOM" ->
    "mushroom", "IoU" -> "iou", "RAGTruth++" -> "ragtruthpp", as "ragtruth_pp")."""
    return "".join(ch for ch in name.casefold().replace("+", "p") if ch not in "-_ .")


def closest_name(name: object, valid) -> str | None:
    """The valid name a user most likely meant by ``name``, or None.

    The one matcher behind every "did you mean" (metric and profile names, option
    values, benchmark names, on every face and the command line). It compares names as
    typed spellings: case, hyphens, underscores, spaces and dots do not count, so
    a benchmark's own spelling finds its name (``"Mu-SHROOM"`` -> ``"mu_shroom"``,
    ``"SHROOM-Visions"`` -> ``"shroom_visions"``, ``"IoU"`` -> ``"iou"``). Failing
    that, a unique valid name that begins with what was typed, or that what was typed
    begins with (``"DetEval"`` -> ``"deteval_1d"``), then the closest spelling by
    `difflib`. Names are never accepted this way, only suggested: the caller raises.

    Examples
    --------
    >>> closest_name("IoU", ["iou", "character"])
    'iou'
    >>> closest_name("Mu-SHROOM", ["mu_shroom", "ragtruth"])
    'mu_shroom'
    >>> closest_name("RAGTruth++", ["ragtruth", "ragtruth_pp"])
    'ragtruth_pp'
    >>> closest_name("DetEval", ["deteval_1d", "cleval_1d"])
    'deteval_1d'
    >>> closest_name("mushrom", ["mu_shroom", "ragtruth"])
    'mu_shroom'
    >>> closest_name("bleu", ["iou", "character"]) is None
    True
    """
    import difflib

    if not isinstance(name, str):
        return None
    valid = [v for v in valid if isinstance(v, str)]
    typed = _key(name)
    keys = {_key(v): v for v in reversed(valid)}  # the first valid name wins a tie
    if not typed:
        return None
    if typed in keys:
        return keys[typed]
    prefixed = {v for k, v in keys.items() if k.startswith(typed) or typed.startswith(k)}
    if len(prefixed) == 1:
        return prefixed.pop()
    close = difflib.get_close_matches(typed, list(keys), n=1, cutoff=0.6)
    return keys[close[0]] if close else None
class EmptySpanWarning(UserWarning):
    """Zero-length spans (``start == end``) were given: valid, but they carry no
    characters and are dropped before any metric (SPEC section 2). The most common cause
    is data written with inclusive ends (a one-character span as ``[7, 7]``), read with
    ``offsets="inclusive"``. One per call, naming how many there were and the first.

    Attributes
    ----------
    references, predictions : int
        How many zero-length spans each side listed.
    first : str
        Where the first one is (``"references example 3, span 0: [7, 7]"``).
    """

    def __init__(self, references: int, predictions: int, first: str) -> None:
        total = references + predictions
        super().__init__(
            f"{total} zero-length span{'s' if total != 1 else ''} (start == end: "
            f"{references} in references, {predictions} in predictions), the first at "
            f"{first}; a zero-length span carries no characters and is dropped before "
            "scoring. If the data writes inclusive ends (a one-character span as [7, 7]), "
            'fix by passing offsets="inclusive" (reads [s, e] as [s, e + 1)).')
        self.references, self.predictions, self.first = references, predictions, first
