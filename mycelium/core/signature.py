"""The settings signature: a canonical, human-readable string that can be parsed back.

Every result carries ``meta["signature"]``, e.g.::

    mycelium:0.1.0|profile:mu_shroom@2|average:macro|zero_division:0.0|metrics:iou|missing:error|offsets:half-open|granularity:char|float_parse:pandas-fast

Fields are ``key:value`` joined by ``|`` in a fixed order; metric parameters appear as
``metric.param:value`` for the selected metrics. Two calls with the same signature
compute the same numbers from the same data. When the data came from a benchmark loader,
``dataset:<name>@sha256:<12 hex>`` and ``dataset_files:<file>,...`` end the signature
(`mycelium.core.provenance`). `parse_signature` returns the options, ready to pass back
to `mycelium.evaluate`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from .aggregate import zero_division_name
from .provenance import parse_dataset_fields
from .score_rules import SOFT_RULES
from .types import ZeroDivision

__all__ = ["format_signature", "parse_signature", "signature_with", "protocol_signature"]

OFFSETS = "half-open"
BOOTSTRAP = "poisson-percentile"
#: The fields `signature_with` appends after the score fields, in this order.
APPENDED = ("thresholds", "grid", "tuned", "annotators", "test")


def format_signature(settings) -> str:
    """The canonical signature string of a `mycelium.core.settings.Settings`."""
    from .._version import __version__

    prof = settings.profile
    fields = [
        ("mycelium", __version__),
        ("profile", prof.tag if prof else "none"),
        ("average", settings.average),
        ("zero_division", _value(settings.zero_division_label)),
        ("metrics", ",".join(settings.metrics)),
    ]
    fields += [(k, v) for k, _, v in (f.partition(":") for f in
                                       param_fields(settings.used_params()))]
    fields += [("missing", settings.missing), ("offsets", settings.offsets),
               ("granularity", settings.granularity)]
    if settings.trim_spans is not None:  # absent when off, so older signatures stand
        fields.append(("trim_spans", settings.trim_spans))
    if prof is not None:  # score rules other than SPEC's defaults (absent otherwise)
        fields += [(k, _value(v)) for k, v in prof.score_rules.items()]
    # No float_parse field here: the profile's rule applies only where numbers are read
    # from text (a loader, the command line), and those readers record it
    # (`signature_with(float_parse=...)`, a dataset's provenance); numbers passed in
    # were never parsed.
    if settings.bootstrap is not None:
        b = settings.bootstrap
        fields += [("ci", repr(b.ci)), ("resamples", str(b.n_resamples)),
                   ("seed", str(b.seed)), ("bootstrap", BOOTSTRAP), ("keys", b.keys)]
    return "|".join(f"{k}:{v}" for k, v in fields)


def signature_with(signature: str | None, *, metrics: Sequence[str] | None = None,
                   params: Mapping[str, Mapping[str, Any]] | None = None,
                   scores: str | None = None, threshold: Any = None,
                   float_parse: str | None = None, dataset: Any = None,
                   offsets: str | None = None, **appended: Any) -> str | None:
    """``signature`` (`format_signature`'s) with what a call learnt after its settings
    were made, each field where it belongs: the one place a signature is edited.

    ``metrics`` names every metric scored (the score metrics after the span ones);
    ``params`` (``{metric: {param: value}}``, the score metrics') go before
    ``missing:``; then ``scores:<form>``, ``threshold:<t>`` (and ``tuned:<metric>`` for
    a `mycelium.scores.Tuned` threshold), then the ``appended`` fields, in the order of
    `APPENDED` (None ones left out): ``thresholds:<n>`` and ``grid:<label>`` of a sweep,
    ``tuned:<metric>.<measure>`` of a tuned curve's rows, ``annotators:<kind>`` of an
    agreement table (`mycelium.annotators`), ``test:<name>`` of a comparison
    (`mycelium.compare`). ``float_parse`` records
    how the data's numbers were read: it replaces the profile's field, and an exact
    reading under a profile without the field adds nothing, so such signatures stay as
    they were. ``dataset`` (a `mycelium.core.provenance.Dataset`) appends the
    ``dataset`` and ``dataset_files`` fields (replacing any already there), after its
    own ``float_parse`` when the loader recorded one. ``offsets`` replaces the offsets
    field: how the data wrote the span ends when the spans were converted before the call
    (`mycelium report --offsets inclusive`). None stays None.

    Examples
    --------
    >>> signature_with("mycelium:0.1.0|profile:none|offsets:half-open",
    ...                float_parse="pandas-fast")
    'mycelium:0.1.0|profile:none|offsets:half-open|float_parse:pandas-fast'
    >>> signature_with("mycelium:0.1.0|profile:mu_shroom@2|float_parse:pandas-fast",
    ...                float_parse="exact")
    'mycelium:0.1.0|profile:mu_shroom@2|float_parse:exact'
    >>> signature_with("mycelium:0.1.0|profile:mu_shroom@2|offsets:half-open",
    ...                float_parse="exact")
    'mycelium:0.1.0|profile:mu_shroom@2|offsets:half-open|float_parse:exact'
    >>> signature_with("mycelium:0.1.0|profile:ragtruth@2|offsets:half-open",
    ...                float_parse="exact")
    'mycelium:0.1.0|profile:ragtruth@2|offsets:half-open'
    >>> signature_with("mycelium:0.1.0|missing:error|offsets:half-open", offsets="inclusive")
    'mycelium:0.1.0|missing:error|offsets:inclusive'
    >>> signature_with("mycelium:0.1.0|metrics:iou|missing:error", metrics=["iou", "char_ap"],
    ...                scores="soft", threshold=0.5)
    'mycelium:0.1.0|metrics:iou,char_ap|missing:error|scores:soft|threshold:0.5'
    """
    if signature is None:
        return None
    fields = signature.split("|")
    if metrics is not None:
        fields = [f"metrics:{','.join(metrics)}" if f.startswith("metrics:") else f
                  for f in fields]
    if params:
        at = next((i for i, f in enumerate(fields) if f.startswith("missing:")), len(fields))
        fields[at:at] = param_fields(params)
    if scores is not None:
        fields.append(f"scores:{scores}")
    if threshold is not None:
        fields.append(f"threshold:{float(threshold)!r}")
        if getattr(threshold, "metric", None) is not None:  # a `Tuned` threshold
            fields.append(f"tuned:{threshold.metric}")
    unknown = [k for k in appended if k not in APPENDED]
    if unknown:
        raise TypeError(f"Expected signature fields among {', '.join(APPENDED)}, got "
                        f"{unknown[0]!r}; fix by adding the field to APPENDED (and to "
                        "parse_signature).")
    fields += [f"{k}:{appended[k]}" for k in APPENDED if appended.get(k) is not None]
    if offsets is not None:
        fields = [f"offsets:{offsets}" if f.startswith("offsets:") else f for f in fields]
    if float_parse is not None:
        _set_float_parse(fields, float_parse, always=False)
    if dataset is not None:
        fields = [f for f in fields if not f.startswith(("dataset:", "dataset_files:"))]
        if dataset.float_parse is not None:  # recorded by the loader, even when exact
            _set_float_parse(fields, dataset.float_parse, always=True)
        fields.append(f"dataset:{dataset.tag}")
        fields.append("dataset_files:" + ",".join(_quote(f) for f in dataset.files))
    return "|".join(fields)


def protocol_signature(fields: Sequence[tuple[str, Any]]) -> str:
    """The signature of a protocol's result (`mycelium.protocols.rank`): its
    ``(key, value)`` fields in order, each value as ``str`` gives it; a value that is
    itself a signature is nested with ``;`` in place of ``|``.

    Examples
    --------
    >>> protocol_signature([("protocol", "faithbench"), ("ci", 0.95),
    ...                     ("gold", "rule:a|vote:b")])
    'protocol:faithbench|ci:0.95|gold:rule:a;vote:b'
    """
    return "|".join(f"{k}:{str(v).replace('|', ';')}" for k, v in fields)


def _profile_rule(fields: list[str]) -> str:
    """The float rule of the named profile of a signature's fields (``exact`` if none):
    an exact reading is written under ``mu_shroom``, whose files its official scorer
    reads with pandas' fast parser, since it departs from the benchmark's rule."""
    from .profiles import PROFILES

    name = next((f.split(":", 1)[1].split("@")[0] for f in fields
                 if f.startswith("profile:")), "none")
    profile = PROFILES.get(name)
    return profile.float_parse if profile is not None else "exact"


def _set_float_parse(fields: list[str], rule: str, *, always: bool) -> None:
    at = [i for i, f in enumerate(fields) if f.startswith("float_parse:")]
    if at:
        fields[at[0]] = f"float_parse:{rule}"
    elif always or rule != "exact" or _profile_rule(fields) != "exact":
        ends = [i for i, f in enumerate(fields) if f.startswith(("dataset:", "dataset_files:"))]
        fields.insert(ends[0] if ends else len(fields), f"float_parse:{rule}")


def _quote(name: str) -> str:
    return name.replace("%", "%25").replace("|", "%7C").replace(",", "%2C")


def param_fields(params) -> list[str]:
    """``metric.param:value`` fields of ``{metric: {param: value}}``, in the given order."""
    return [f"{metric}.{key}:{_value(value)}" for metric, values in params.items()
            for key, value in values.items()]


def parse_signature(signature: Any) -> dict[str, Any]:
    """Parse a signature back into the settings it records.

    Parameters
    ----------
    signature : str or DataFrame
        A ``meta["signature"]`` string, a value of a result frame's ``signature``
        column, or the result frame itself (pandas or Polars): its ``signature`` column
        (which must hold one signature: pass one value, or split the frame by that
        column, for a concatenation of results with different settings), else its
        ``attrs["mycelium_signature"]``.

    Returns
    -------
    dict
        ``version``, ``profile`` (name or None), ``profile_version``, ``average``,
        ``zero_division``, ``metrics`` (list), ``params`` ({metric: {param: value}}),
        ``missing``, ``offsets``, ``granularity``, and with intervals ``ci``, ``n_resamples``, ``seed``,
        ``bootstrap``; ``score_rules`` ({rule: value}) when the profile reads
        scores by rules other than SPEC's defaults; ``float_parse`` when the profile's
        files are read other than exactly (``"pandas-fast"`` for ``mu_shroom@2``), or
        the loader recorded how it read them; with a loader's provenance
        (`mycelium.io.provenance`), ``dataset``: a dict with ``name``, ``sha256`` (its
        first 12 hex digits) and ``files``. The
        keys ``average``, ``zero_division``, ``metrics``, ``params``,
        ``missing``, ``granularity``, ``ci``, ``n_resamples`` and ``seed`` can be passed straight back to
        `mycelium.evaluate`, and so can ``trim_spans`` when the signature records it.

    Raises
    ------
    ValueError
        If the string is not a mycelium signature, or a frame has no signature or
        several different ones.

    Examples
    --------
    >>> s = parse_signature("mycelium:0.1.0|profile:ragtruth@1|average:micro|"
    ...                     "zero_division:0.0|metrics:character|missing:error|offsets:half-open")
    >>> s["profile"], s["average"], s["metrics"], s["zero_division"]
    ('ragtruth', 'micro', ['character'], 0.0)

    Results concatenated from several calls keep their signatures in the column:

    >>> import pandas as pd, mycelium
    >>> df = pd.DataFrame({"ref": [[[0, 10]], [[4, 7]]], "pred": [[[2, 8]], [[4, 7]]]})
    >>> both = pd.concat([df.mycelium.evaluate("ref", "pred", metrics="iou"),
    ...                   df.mycelium.evaluate("ref", "pred", metrics="iou",
    ...                                        average="micro")], ignore_index=True)
    >>> [parse_signature(s)["average"] for s in both["signature"]]
    ['macro', 'micro']
    >>> parse_signature(both[both["average"] == "micro"])["average"]
    'micro'
    """
    if hasattr(signature, "columns") and not isinstance(signature, str):
        signature = _frame_signature(signature)
    if not isinstance(signature, str) or not signature.startswith("mycelium:"):
        raise ValueError(f"{signature!r} is not a mycelium signature; expected a string "
                         "starting with 'mycelium:' as found in meta['signature'].")
    out: dict[str, Any] = {"params": {}}
    for part in signature.split("|"):
        key, sep, value = part.partition(":")
        if not sep:
            raise ValueError(f"Malformed signature field {part!r}; expected 'key:value'.")
        if key == "mycelium":
            out["version"] = value
        elif key == "profile":
            name, _, version = value.partition("@")
            out["profile"] = None if name == "none" else name
            out["profile_version"] = int(version) if version else None
        elif key == "zero_division":
            named = cast(ZeroDivision, value) if value in ("nan", "warn") else float(value)
            out["zero_division"] = zero_division_name(named)
        elif key == "metrics":
            out["metrics"] = value.split(",") if value else []
        elif key == "ci":
            out["ci"] = float(value)
        elif key in ("resamples", "seed"):
            out["n_resamples" if key == "resamples" else "seed"] = int(value)
        elif key == "char_ap_undefined":
            out.setdefault("score_rules", {})[key] = _parse_value(value)
        elif key in ("threshold_rule", "token_overlap", *SOFT_RULES):
            out.setdefault("score_rules", {})[key] = value
        elif parse_dataset_fields(key, value, out):
            pass
        elif "." in key:
            metric, _, param = key.partition(".")
            out["params"].setdefault(metric, {})[param] = _parse_value(value)
        else:
            out[key] = value
    return out


def _value(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _parse_value(text: str):
    if text == "none":
        return None
    try:
        return int(text) if text.lstrip("-").isdigit() else float(text)
    except ValueError:
        return text


def _frame_signature(frame: Any) -> Any:
    """The one signature of a result frame: its ``signature`` column, else its attrs."""
    if "signature" in list(frame.columns):
        column = frame["signature"]
        values = column.to_list() if hasattr(column, "to_list") else list(column)
        distinct = list(dict.fromkeys(v for v in values if v is not None))
        if len(distinct) != 1:
            raise ValueError(f"Expected one signature in the frame's 'signature' column, "
                             f"got {len(distinct)} different ones; fix by passing one "
                             "value (frame['signature'][i]) or the rows of one call "
                             "(split the frame by its 'signature' column).")
        return distinct[0]
    attrs = getattr(frame, "attrs", None) or {}
    if "mycelium_signature" in attrs:
        return attrs["mycelium_signature"]
    raise ValueError(f"Expected a result frame with a 'signature' column, got columns "
                     f"{list(frame.columns)}; fix by scoring with with_signature=True (the "
                     "default) or passing meta['signature'].")
