"""Detector output onto characters: token strings to code-point offsets (``tokens``),
offsets in UTF-8 bytes or UTF-16 units to code points and back (``offsets``), predicted
phrases and inline tags to spans (``phrases``), span edges trimmed before scoring
(``trim``, behind ``evaluate(trim_spans=...)``). Imports only ``core`` and ``errors``.
"""

from .offsets import convert_offsets
from .phrases import AnchorReport, anchor_phrases, parse_tagged
from .tokens import AlignmentReport, align_tokens

__all__ = ["align_tokens", "AlignmentReport", "convert_offsets", "anchor_phrases",
           "AnchorReport", "parse_tagged"]
