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

from .lettucedetect import LETTUCEDETECT_LABEL_TYPE, read_lettucedetect
from .lettucedetect_output import LETTUCEDETECT_PREDICTION_TYPE, read_lettucedetect_predictions
from .mushroom import ANNOTATIONS_TYPE, SOFT_SPAN_TYPE, read_mushroom
from .parquet import read_parquet, write_parquet
from .fava import FAVA_SPAN_TYPE, read_fava
from .psiloqa import read_psiloqa
from .provenance import Dataset, attach_dataset, dataset_of, dataset_provenance
from .ragtruth import RAGTRUTH_LABEL_TYPE, read_ragtruth
from .ragtruth_pp import RAGTRUTH_PP_LABEL_TYPE, read_ragtruth_pp
from .shroom_visions import VISIONS_SPAN_TYPE, read_shroom_visions

__all__ = ["read_parquet", "write_parquet", "read_mushroom", "read_ragtruth",
           "read_psiloqa", "read_fava", "SOFT_SPAN_TYPE", "ANNOTATIONS_TYPE",
           "RAGTRUTH_LABEL_TYPE", "FAVA_SPAN_TYPE",
           "read_ragtruth_pp", "read_lettucedetect", "read_lettucedetect_predictions",
           "RAGTRUTH_PP_LABEL_TYPE", "LETTUCEDETECT_PREDICTION_TYPE",
           "LETTUCEDETECT_LABEL_TYPE", "attach_dataset", "dataset_of", "dataset_provenance",
           "Dataset", "read_shroom_visions", "VISIONS_SPAN_TYPE"]
