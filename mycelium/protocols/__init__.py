"""Benchmark protocols that are more than a profile: scorers that reproduce a benchmark's
own procedure end to end, over its files and rules, using the profiles in
`mycelium.core.profiles` and the dict face below them.

- ``mushroom``: the official Mu-SHROOM (SemEval-2025 Task 3) scorer as a drop-in
  (`score_files`, `score_records`; the ``mycelium mushroom`` command): Arrow reads,
  every example scored at once;
- ``psiloqa``: PsiloQA's protocol (`score_psiloqa`: a threshold tuned on validation,
  applied to test);
- ``fava``: FAVA's sentence-level protocol (`score_fava`);
- ``faithbench``: FaithBench's files, gold rules and response-level detector table
  (``mycelium.protocols.faithbench.detector_table``);
- ``shroom_visions``: the SHROOM-Visions 2026 kit scorer as a drop-in (Cor, Cor+Lbl and
  IoU under the kit's rules, a per-label breakdown; ``score_files`` there, and the
  ``mycelium shroom-visions`` command).

Sits above ``io`` and ``annotators``, below ``report``.
"""

from ..core.lazy import lazy_names

_NAMES = {"score_files": "mushroom", "score_records": "mushroom",
          "score_psiloqa": "psiloqa", "score_fava": "fava"}

__all__ = ["score_files", "score_records", "score_psiloqa", "score_fava"]

__getattr__, __dir__ = lazy_names(__name__, _NAMES, globals())
