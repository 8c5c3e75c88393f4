"""Build ``mycelium/datasets/registry.json`` and ``mycelium/datasets/references.json``.

The registry's hashes are the SHA-256 of the local copies in ``../shared/data`` beside the
repository, or in the folder ``MYCELIUM_SHARED_DATA`` names, each copied byte for byte
from the commit its entry names (see each folder's SOURCE.md),
and the reference results are parsed from the published leaderboard files kept there.
Run it again when a copy or a leaderboard is added::

    MYCELIUM_SHARED_DATA=../shared/data python validation/build_datasets.py

Benchmarks without a local copy list their files without a sha256: ``mycelium data add``
records the hashes of the copy a user registers.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "mycelium" / "datasets"
MUSHROOM_COMMIT = "7fea78a0e5af887d196931721147ace5b4c4d9a8"
SHROOM_COMMIT = "6698b8b16b7300f9f234a024141365311221a6cd"
FAITHBENCH_COMMIT = "cf89797d82812c23b5d5e5c121f1d9b8983bbbce"
COMPANION_COMMIT = "0497b6db9c3c52bc9aabb0cd046e8ac815edbd13"
VISIONS_COMMIT = "7d190c253cbeaec753467dc8048c671688368756"
TEST_LANGS = ["ar", "ca", "cs", "de", "en", "es", "eu", "fa", "fi", "fr", "hi", "it", "sv",
              "zh"]
VAL_LANGS = ["ar", "de", "en", "es", "fi", "fr", "hi", "it", "sv", "zh"]

MUSHROOM_BIB = """@inproceedings{vazquez-etal-2025-semeval,
    title = "{S}em{E}val-2025 Task 3: {M}u-{SHROOM}, the Multilingual Shared-task on Hallucinations and Related Observable Overgeneration Mistakes",
    author = "V{\\'a}zquez, Ra{\\'u}l and Mickus, Timothee and Zosa, Elaine and Vahtola, Teemu and Tiedemann, J{\\"o}rg and Sinha, Aman and Segonne, Vincent and S{\\'a}nchez-Vega, Fernando and Raganato, Alessandro and Libovick{\\'y}, Jind{\\v{r}}ich and Karlgren, Jussi and Ji, Shaoxiong and Helcl, Jind{\\v{r}}ich and Guillou, Liane and de Gibert, Ona and Bengoetxea, Jaione and Attieh, Joseph and Apidianaki, Marianna",
    booktitle = "Proceedings of the 19th International Workshop on Semantic Evaluation (SemEval-2025)",
    year = "2025",
    address = "Vienna, Austria",
    publisher = "Association for Computational Linguistics",
    pages = "2472--2497",
    eprint = "2504.11975",
    archivePrefix = "arXiv"
}"""
RAGTRUTH_BIB = """@misc{wu2023ragtruth,
    title = {RAGTruth: A Hallucination Corpus for Developing Trustworthy Retrieval-Augmented Language Models},
    author = {Yuanhao Wu and Juno Zhu and Siliang Xu and Kashun Shum and Cheng Niu and Randy Zhong and Juntong Song and Tong Zhang},
    year = {2023},
    eprint = {2401.00396},
    archivePrefix = {arXiv},
    primaryClass = {cs.CL}
}"""
RAGTRUTH_PP_BIB = """@misc{ragtruth-plus-plus,
    title = {{RAGTruth++}},
    author = {{Blue Guardrails}},
    howpublished = {\\url{https://huggingface.co/datasets/blue-guardrails/ragtruth-plus-plus}},
    note = {Hugging Face dataset card, revision afaec19}
}"""
PSILOQA_BIB = """@misc{rykov2025modelslielearnmultilingual,
    title = {When Models Lie, We Learn: Multilingual Span-Level Hallucination Detection with PsiloQA},
    author = {Elisei Rykov and Kseniia Petrushina and Maksim Savkin and Valerii Olisov and Artem Vazhentsev and Kseniia Titova and Alexander Panchenko and Vasily Konovalov and Julia Belikova},
    year = {2025},
    eprint = {2510.04849},
    archivePrefix = {arXiv},
    primaryClass = {cs.CL}
}"""
FAVA_BIB = """@misc{mishra2024fine,
    title = {Fine-grained Hallucination Detection and Editing for Language Models},
    author = {Abhika Mishra and Akari Asai and Vidhisha Balachandran and Yizhong Wang and Graham Neubig and Yulia Tsvetkov and Hannaneh Hajishirzi},
    year = {2024},
    eprint = {2401.06855},
    archivePrefix = {arXiv}
}"""
LETTUCE_BIB = """@misc{Kovacs:2025,
    title = {LettuceDetect: A Hallucination Detection Framework for RAG Applications},
    author = {{\\'A}d{\\'a}m Kov{\\'a}cs and G{\\'a}bor Recski},
    year = {2025},
    eprint = {2502.17125},
    archivePrefix = {arXiv},
    primaryClass = {cs.CL},
    url = {https://arxiv.org/abs/2502.17125}
}"""
FAITHBENCH_BIB = """@inproceedings{faithbench-2025-naacl,
    title = "{F}aith{B}ench: A Diverse Hallucination Benchmark for Summarization by Modern {LLM}s",
    author = "Bao, Forrest Sheng and Li, Miaoran and Qu, Renyi and Luo, Ge and Wan, Erana and Tang, Yujia and Fan, Weisi and Tamber, Manveer Singh and Kazi, Suleman and Sourabh, Vivek and Qi, Mike and Tu, Ruixuan and Xu, Chenyu and Gonzales, Matthew and Mendelevitch, Ofer and Ahmad, Amin",
    booktitle = "Proceedings of the 2025 Conference of the Nations of the Americas Chapter of the Association for Computational Linguistics: Human Language Technologies (Volume 2: Short Papers)",
    month = apr,
    year = "2025",
    address = "Albuquerque, New Mexico",
    publisher = "Association for Computational Linguistics",
    url = "https://aclanthology.org/2025.naacl-short.38/",
    pages = "448--461",
    ISBN = "979-8-89176-190-2"
}"""
VISIONS_BIB = """@misc{shroom-visions-2026,
    title = {{SHROOM}-Visions: the shared task on hallucinations in vision-language model outputs},
    author = {{The SHROOM organisers (Helsinki-NLP)}},
    year = {2026},
    howpublished = {\\url{https://helsinki-nlp.github.io/shroom/2026}},
    note = {Task page; no task paper was found to cite}
}"""


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def local(root: Path, rel: str, url: str | None, **fields) -> dict:
    path = root / rel
    entry = {"path": rel, **fields, "url": url, "sha256": sha256(path),
             "bytes": path.stat().st_size}
    return entry


def mushroom(data: Path) -> dict:
    root = data / "mushroom"
    raw = f"https://raw.githubusercontent.com/Helsinki-NLP/mu-shroom/{MUSHROOM_COMMIT}/"
    files = []
    for lang in TEST_LANGS:
        rel = f"splits/test_labeled/v1/mushroom.{lang}-tst.v1.extra.jsonl"
        files.append(local(root, rel, raw + rel, split="test", lang=lang))
    for lang in VAL_LANGS:
        rel = f"splits/val/v2/mushroom.{lang}-val.v2.extra.jsonl"
        files.append(local(root, rel, raw + rel, split="val", lang=lang))
    for lang in VAL_LANGS:
        rel = f"splits/val/v1/mushroom.{lang}-val.v1.jsonl"
        files.append(local(root, rel, raw + rel, split="val_v1", lang=lang))
    return {
        "name": "mu_shroom", "title": "Mu-SHROOM (SemEval-2025 Task 3)",
        "version": f"Helsinki-NLP/mu-shroom@{MUSHROOM_COMMIT[:7]}",
        "homepage": "https://helsinki-nlp.github.io/shroom/",
        "source": f"https://github.com/Helsinki-NLP/mu-shroom/tree/{MUSHROOM_COMMIT}",
        "splits": {"test": "labelled test set, v1 (the official leaderboard's references)",
                   "val": "validation v2 (the submission platform's reference; sv has 49 items)",
                   "val_v1": "validation v1 (labels only)"},
        "languages": TEST_LANGS,
        "licence": ("None stated: the GitHub repository has no LICENSE file and no licence "
                    "statement in its READMEs, which ask users to cite the task paper. A "
                    "third-party survey lists the Hugging Face copy (Helsinki-NLP/mu-shroom) "
                    "as CC-BY-4.0; not verified."),
        "citation": MUSHROOM_BIB,
        "loader": "mycelium.io.read_mushroom",
        "profile": "mu_shroom", "protocol": "mycelium.protocols.mushroom.score_files",
        "files": files,
    }


def faithbench(data: Path) -> dict:
    root = data / "faithbench"
    raw = f"https://raw.githubusercontent.com/vectara/FaithBench/{FAITHBENCH_COMMIT}/"
    files = [local(root, "FaithBench.csv", raw + "FaithBench.csv", split="all", lang="en")]
    for batch in [*range(1, 13), 14, 15, 16]:
        rel = f"data_for_release/batch_{batch}.json"
        files.append(local(root, rel, raw + rel, split="all", lang="en"))
    companion = f"https://raw.githubusercontent.com/forrestbao/FaithBench/{COMPANION_COMMIT}/"
    for batch in range(1, 17):
        rel = f"companion/assign/batch_5_src_no_sports/results/batch_{batch}_annotation.json"
        files.append(local(root, rel, companion + rel[len("companion/"):], split="companion",
                           lang="en"))
    # derived: the values of the companion's assign/annotation_config.py, as data (SOURCE.md)
    files.append(local(root, "companion/assign/annotation_config.json", None,
                       split="companion", lang="en"))
    files.append(local(root, "LICENSE", raw + "LICENSE", split=None, lang=None))
    return {
        "name": "faithbench", "title": "FaithBench (NAACL 2025)",
        "version": f"vectara/FaithBench@{FAITHBENCH_COMMIT[:7]}",
        "homepage": "https://github.com/vectara/FaithBench",
        "source": f"https://github.com/vectara/FaithBench/tree/{FAITHBENCH_COMMIT}",
        "splits": {"all": "the released 15 annotated batches (750 summaries; batch 13 is "
                          "not released)",
                   "companion": "the authors' annotation exports, batches 1-16 "
                                f"(forrestbao/FaithBench@{COMPANION_COMMIT[:7]}), from which the "
                                "paper's detector table is computed, and annotation_config.json "
                                "(the paper's skipped samples and annotator selection, derived "
                                "from assign/annotation_config.py)"},
        "languages": ["en"],
        "licence": ("Attribution-NonCommercial-ShareAlike 4.0 International (the repository's "
                    "LICENSE, first line); an earlier README: 'CC BY-NC-SA ... This dataset "
                    "can only be used for research purpose.'"),
        "citation": FAITHBENCH_BIB,
        "loader": "mycelium.protocols.faithbench.read_items",
        "protocol": "mycelium.protocols.faithbench.detector_table",
        "files": files,
    }


def visions(data: Path) -> dict:
    root = data / "shroom_visions"
    raw = f"https://raw.githubusercontent.com/RiSchmi/internal_leaderboard_shroom_vision/{VISIONS_COMMIT}/"
    files = []
    for lang in ["en", "fr", "it", "zh"]:
        rel = f"gold/shroom-vision.test.{lang}.labeled.jsonl"
        files.append(local(root, rel, raw + "data/" + rel, split="heldout_train", lang=lang))
    return {
        "name": "shroom_visions", "title": "SHROOM-Visions 2026",
        "version": f"RiSchmi/internal_leaderboard_shroom_vision@{VISIONS_COMMIT[:7]}",
        "homepage": "https://helsinki-nlp.github.io/shroom/",
        "source": f"https://github.com/RiSchmi/internal_leaderboard_shroom_vision/tree/{VISIONS_COMMIT}",
        "splits": {"heldout_train": "a held-out slice of the organisers' labelled train split "
                                    "(every item says split 'train'), published by one team; "
                                    "the official test gold is not public"},
        "languages": ["en", "fr", "it", "zh"],
        "licence": ("None stated: neither the task pages nor the repository holding these "
                    "files state a licence; redistribution terms unknown (research use)."),
        "citation": VISIONS_BIB,
        "loader": None,
        "loader_note": "no mycelium loader yet; JSON lines with labels {start, end, prob, label}",
        "files": files,
    }


def remote(rel: str, url: str | None, **fields) -> dict:
    return {"path": rel, **fields, "url": url, "sha256": None, "bytes": None}


def without_copies() -> list[dict]:
    note = "no local copy was available when the registry was built: `mycelium data add` records the hashes"
    rag = "https://raw.githubusercontent.com/ParticleMedia/RAGTruth/main/dataset/"
    pp = "https://huggingface.co/datasets/blue-guardrails/ragtruth-plus-plus/resolve/main/"
    return [
        {"name": "ragtruth", "title": "RAGTruth", "version": "2024-02 relabelled release",
         "homepage": "https://github.com/ParticleMedia/RAGTruth",
         "source": "https://github.com/ParticleMedia/RAGTruth",
         "splits": {"train": "split == 'train'", "test": "split == 'test'"},
         "languages": ["en"],
         "licence": "The repository has a LICENSE file (not read here); its README states none.",
         "citation": RAGTRUTH_BIB, "loader": "mycelium.io.read_ragtruth", "profile": "ragtruth",
         "hash_note": note,
         "files": [remote("response.jsonl", rag + "response.jsonl", split="all", lang="en"),
                   remote("source_info.jsonl", rag + "source_info.jsonl", split="all",
                          lang="en")]},
        {"name": "ragtruth_pp", "title": "RAGTruth++", "version": "blue-guardrails/ragtruth-plus-plus@afaec19",
         "homepage": "https://huggingface.co/datasets/blue-guardrails/ragtruth-plus-plus",
         "source": "https://huggingface.co/datasets/blue-guardrails/ragtruth-plus-plus",
         "splits": {"all": "one set"}, "languages": ["en"],
         "licence": "Not stated in the parts of the dataset card read here.",
         "citation": RAGTRUTH_PP_BIB,
         "citation_note": "no paper was found; the entry cites the dataset card",
         "loader": "mycelium.io.read_ragtruth_pp", "hash_note": note,
         "files": [remote("hallucination_spans.csv", pp + "hallucination_spans.csv", split="all",
                          lang="en"),
                   remote("messages.csv", pp + "messages.csv", split="all", lang="en")]},
        {"name": "psiloqa", "title": "PsiloQA", "version": "s-nlp/PsiloQA (Hugging Face)",
         "homepage": "https://github.com/s-nlp/PsiloQA",
         "source": "https://huggingface.co/datasets/s-nlp/PsiloQA",
         "splits": {"train": "train", "validation": "validation", "test": "test"},
         "languages": ["ar", "ca", "cs", "de", "en", "es", "eu", "fa", "fi", "fr", "hi", "it",
                       "sv", "zh"],
         "licence": "Not verified here: read the dataset card.",
         "citation": PSILOQA_BIB, "loader": "mycelium.io.read_psiloqa",
         "protocol": "mycelium.protocols.psiloqa", "hash_note": note,
         "files": [remote("train.parquet", None, split="train", lang=None),
                   remote("validation.parquet", None, split="validation", lang=None),
                   remote("test.parquet", None, split="test", lang=None)]},
        {"name": "fava", "title": "FAVA (FavaBench annotations)", "version": "fava-uw/fava-data",
         "homepage": "https://github.com/abhika-m/FAVA",
         "source": "https://huggingface.co/datasets/fava-uw/fava-data",
         "splits": {"all": "the human-annotated benchmark"}, "languages": ["en"],
         "licence": "Not stated in the repository README read here; read the dataset card.",
         "citation": FAVA_BIB, "loader": "mycelium.io.read_fava",
         "protocol": "mycelium.protocols.fava", "hash_note": note,
         "files": [remote("annotations.json",
                          "https://huggingface.co/datasets/fava-uw/fava-data/resolve/main/annotations.json",
                          split="all", lang="en")]},
        {"name": "lettucedetect", "title": "LettuceDetect's RAGTruth-format sets",
         "version": "llm-semantic-router/halueval-llm-spans",
         "homepage": "https://github.com/KRLabsOrg/LettuceDetect",
         "source": "https://huggingface.co/datasets/llm-semantic-router/halueval-llm-spans",
         "splits": {"all": "HaluEval summarisation span set (RAGTruth-compatible format)"},
         "languages": ["en"],
         "licence": "LettuceDetect's code and models: MIT (its README). The data sets: read "
                    "each dataset card (not verified here).",
         "citation": LETTUCE_BIB, "loader": "mycelium.io.read_lettucedetect", "hash_note": note,
         "files": [remote("halueval_llm_spans.json", None, split="all", lang="en")]},
    ]


# --------------------------------------------------------------- reference results

_ROW = re.compile(r"^\|\s*(\d*)\s*\|\s*(.+?)\s*\|\s*([0-9.eE+-]+)\s*\|\s*([0-9.eE+-]+)\s*\|$")


def mushroom_leaderboard(data: Path, metric: str) -> list[dict]:
    name = {"iou": "iou_rankings.md", "cor": "cor_rankings.md"}[metric]
    source = (f"https://github.com/Helsinki-NLP/shroom/blob/{SHROOM_COMMIT}/2025/{name}")
    rows, lang = [], None
    for line in (data / "mushroom" / "leaderboard" / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            lang = line[3:].strip().lower()
            continue
        match = _ROW.match(line.strip())
        if not match or lang is None:
            continue
        rank, team, first, _second = match.groups()
        baseline = team.startswith("_Baseline")
        printed = first  # each file lists its own metric first (IoU, or rho)
        rows.append({"benchmark": "mu_shroom", "split": "test", "lang": lang,
                     "metric": metric, "team": team.strip("_") if baseline else team,
                     "value": float(printed), "printed": printed,
                     "precision": {"significant": 6},
                     "published_rank": int(rank) if rank else None,
                     "baseline": baseline, "source": source,
                     "convention": "mycelium.protocols.mushroom.score_files (the official "
                                   "participant_kit/scorer.py; IoU: mean per-item IoU of hard "
                                   "labels; cor: mean per-item Spearman of soft labels)",
                     "signature": "profile:mu_shroom|float_parse:pandas-fast"})
    return rows


def visions_leaderboard(data: Path) -> list[dict]:
    source = f"https://github.com/Helsinki-NLP/shroom/blob/{SHROOM_COMMIT}/2026.md"
    rows = []
    with open(data / "shroom_visions" / "leaderboard.csv", encoding="utf-8", newline="") as fh:
        for rec in csv.DictReader(fh):
            for metric, column in (("cor_lbl", "Cor+Lbl"), ("cor", "Cor"), ("iou", "IoU")):
                printed = rec[column]
                if not printed:
                    continue
                rows.append({"benchmark": "shroom_visions", "split": "test", "lang": rec["lang"],
                             "metric": metric, "team": rec["team"], "value": float(printed),
                             "printed": printed, "precision": {"decimals": 4},
                             "published_rank": int(rec[f"rank_{column}"]),
                             "baseline": rec["team"] == "baseline", "source": source,
                             "convention": "the task kit's official_scorer.py on the closed "
                                           "test set (1,200 items per language); the "
                                           "published table ranks the baseline",
                             "signature": None})
    return rows


#: What every row of one published table shares (stored once per table).
SHARED = ("benchmark", "split", "lang", "metric", "source", "precision", "convention",
          "signature")


def tabled(rows: list[dict]) -> list[dict]:
    """Rows grouped into tables by their shared fields, each row keeping the rest."""
    tables: dict[str, dict] = {}
    for row in rows:
        shared = {k: row[k] for k in SHARED}
        key = json.dumps(shared, sort_keys=True)
        table = tables.setdefault(key, {**shared, "rows": []})
        kept = {"team": row["team"], "printed": row["printed"],
                "published_rank": row["published_rank"], "baseline": row["baseline"]}
        if row.get("detector"):
            kept["detector"] = row["detector"]
        table["rows"].append(kept)
    return list(tables.values())


#: FaithBench's detector table as printed by forrestbao/FaithBench@0497b6d
#: eval/eval_detectors.ipynb (`git show 0497b6d:eval/eval_detectors.ipynb`): execution 7,
#: ``detector_eval-worst.compute_performance()`` (worst pooling, the paper's table), and
#: execution 8 (best pooling); balanced accuracy and macro F1, x100, 2 decimals.
FAITHBENCH_TABLE = """\
detector                worst_ba worst_f1 best_ba best_f1 key
HHEM-1                  48.70    42.37    52.91   52.18   hhemv1
HHEM-2.1-Tri            55.27    40.30    47.12   45.97   hhem-2.1
HHEM-2.1-English        53.28    35.21    47.73   45.19   hhem-2.1-english
HHEM-2.1-Open           51.98    33.03    52.40   51.03   -
AlignScore-BS           51.31    44.92    52.09   51.37   -
AlignScore-LG           51.96    36.77    48.02   46.85   -
True-Teacher            52.87    37.60    51.82   51.39   trueteacher
True-NLI                50.99    28.52    49.54   45.00   true_nli
GPT-4-Turbo,_zero-shot  55.96    42.16    56.01   56.40   gpt-4-turbo
GPT-4-Turbo,_FACTS      53.59    32.56    54.12   52.73   -
GPT-4o,_zero-shot       56.18    39.93    57.16   57.77   gpt_4o
GPT-4o,_FACTS           52.19    30.35    51.77   48.80   -
O1-Mini,_zero-shot      61.17    48.22    59.32   59.85   -
O1-Mini,_FACTS          58.67    45.27    56.37   56.77   -
O3-Mini,_zero-shot      58.87    44.52    57.88   58.53   -
O3-Mini,_FACTS          58.18    42.44    56.09   56.49   -
Minicheck-Roberta-LG    52.04    51.21    48.45   43.25   -
Minicheck-Deberta-LG    55.21    55.19    53.47   42.78   -
Minicheck-Flan-T5-LG    50.14    49.17    49.45   44.64   -
Ragas-GPT-4o            62.31    57.06    57.54   54.65   -
Trulens-GPT-4o          61.14    51.94    56.55   56.03   -
"""


def faithbench_table() -> list[dict]:
    source = (f"https://github.com/forrestbao/FaithBench/blob/{COMPANION_COMMIT}/eval/"
              "eval_detectors.ipynb")
    lines = FAITHBENCH_TABLE.splitlines()
    head = lines[0].split()
    rows = []
    for line in lines[1:]:
        cells = dict(zip(head, line.split()))
        for pooling, metric in (("worst", "balanced_accuracy"), ("worst", "f1_macro"),
                                ("best", "balanced_accuracy"), ("best", "f1_macro")):
            column = f"{pooling}_{'ba' if metric == 'balanced_accuracy' else 'f1'}"
            rows.append({"benchmark": "faithbench", "split": f"paper_{pooling}", "lang": "en",
                         "metric": metric, "team": cells["detector"].replace("_", " "),
                         "value": float(cells[column]) / 100, "printed": cells[column],
                         "precision": {"decimals": 2, "scale": 100},
                         # the notebook prints no rank: `mycelium rank` ranks by value
                         "published_rank": None, "baseline": False, "source": source,
                         "detector": None if cells["key"] == "-" else cells["key"],
                         "convention": f"mycelium.protocols.faithbench.detector_table(path, "
                                       f"convention='paper', pooling='{pooling}'): response "
                                       "level, 750 items (companion exports), x100",
                         "signature": None})
    return rows


def main() -> int:
    beside = Path(__file__).resolve().parents[2] / "shared" / "data"
    data = Path(os.environ.get("MYCELIUM_SHARED_DATA", beside))
    if not data.is_dir():
        print(f"Expected the shared data folder at {data}; set MYCELIUM_SHARED_DATA.",
              file=sys.stderr)
        return 1
    registry = {"format": 1, "benchmarks": [mushroom(data), *without_copies(),
                                             visions(data), faithbench(data)]}
    (ROOT / "registry.json").write_text(json.dumps(registry, indent=1, ensure_ascii=False)
                                        + "\n", encoding="utf-8")
    rows = [*mushroom_leaderboard(data, "iou"), *mushroom_leaderboard(data, "cor"),
            *visions_leaderboard(data), *faithbench_table()]
    tables = tabled(rows)
    with open(ROOT / "references.json", "w", encoding="utf-8") as fh:
        fh.write('{"format": 1, "tables": [\n')
        fh.write(",\n".join(json.dumps(t, ensure_ascii=False) for t in tables))
        fh.write("\n]}\n")
    print(f"{len(registry['benchmarks'])} benchmarks, {len(rows)} reference rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
