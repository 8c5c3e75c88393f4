"""Reading and writing span data: Parquet that every reader opens, and benchmark loaders.

- `write_parquet` / `read_parquet`: pandas, Polars or Arrow frames with span columns and
  result signatures, readable by ``pd.read_parquet`` (both backends) and Polars.
- `read_mushroom`: Mu-SHROOM (SemEval-2025 Task 3) JSONL files.
- `read_ragtruth`: RAGTruth ``response.jsonl`` (+ ``source_info.jsonl``).
- `read_psiloqa`: PsiloQA's split files (Parquet or JSON lines).
- `read_fava`: FAVA's tagged annotations (six error types, ``<mark>``/``<delete>``).
- `read_ragtruth_pp`: RAGTruth++ (``hallucination_spans.csv`` + ``messages.csv``).
- `read_lettucedetect`: LettuceDetect's RAGTruth-derived samples (HaluEval span sets);
  `read_lettucedetect_predictions`: its detectors' outputs (spans or tokens).
- `read_shroom_visions`: SHROOM-Visions 2026 gold or prediction files (typed soft spans,
  `VISIONS_SPAN_TYPE`; probabilities read as the task's scorer reads them).
- `attach_dataset` / `dataset_of`: a loaded frame's provenance (file names and SHA-256),
  carried into every result's signature (`mycelium.io.provenance`).
- `mycelium.io.float_parse`: JSON numbers read as the official Mu-SHROOM scorer's
  ``pandas.read_json`` reads them (``float_parse="pandas-fast"``), or exactly.

All offsets are half-open ``[start, end)`` Python code points, as in the files.
"""

from ..core.lazy import lazy_names

#: Each public name and the module that defines it, loaded on first use: a reader needs
#: only its own module (the Mu-SHROOM scorer reads with pyarrow and never loads pandas,
#: Parquet or the adapters the other readers use).
_NAMES = {
    "read_lettucedetect": "lettucedetect", "LETTUCEDETECT_LABEL_TYPE": "lettucedetect",
    "read_lettucedetect_predictions": "lettucedetect_output",
    "LETTUCEDETECT_PREDICTION_TYPE": "lettucedetect_output",
    "read_mushroom": "mushroom", "ANNOTATIONS_TYPE": "mushroom",
    "SOFT_SPAN_TYPE": "mushroom",
    "read_parquet": "parquet", "write_parquet": "parquet",
    "read_fava": "fava", "FAVA_SPAN_TYPE": "fava",
    "read_psiloqa": "psiloqa",
    "Dataset": "provenance", "attach_dataset": "provenance", "dataset_of": "provenance",
    "dataset_provenance": "provenance",
    "read_ragtruth": "ragtruth", "RAGTRUTH_LABEL_TYPE": "ragtruth",
    "read_ragtruth_pp": "ragtruth_pp", "RAGTRUTH_PP_LABEL_TYPE": "ragtruth_pp",
    "read_shroom_visions": "shroom_visions", "VISIONS_SPAN_TYPE": "shroom_visions",
}

__all__ = ["read_parquet", "write_parquet", "read_mushroom", "read_ragtruth",
           "read_psiloqa", "read_fava", "SOFT_SPAN_TYPE", "ANNOTATIONS_TYPE",
           "RAGTRUTH_LABEL_TYPE", "FAVA_SPAN_TYPE",
           "read_ragtruth_pp", "read_lettucedetect", "read_lettucedetect_predictions",
           "RAGTRUTH_PP_LABEL_TYPE", "LETTUCEDETECT_PREDICTION_TYPE",
           "LETTUCEDETECT_LABEL_TYPE", "attach_dataset", "dataset_of", "dataset_provenance",
           "Dataset", "read_shroom_visions", "VISIONS_SPAN_TYPE"]

__getattr__, __dir__ = lazy_names(__name__, _NAMES, globals())
