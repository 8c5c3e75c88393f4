# %% [markdown]
# # Walkthrough: reading one detector output under every benchmark convention
#
# A notebook as a script: the cells are separated by ``# %%`` comments (VS Code,
# PyCharm and Jupytext open them as cells), and the whole file runs top to bottom with
# ``python examples/walkthrough.py``. It uses the synthetic example data
# (``examples/make_example_data.py``): four detectors over two models, two tasks and
# four languages.

# %%
from pathlib import Path

import pandas as pd

import mycelium  # noqa: F401  (registers the df.mycelium accessor)

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "detections.jsonl"
OUTPUT = HERE / "output"
pd.set_option("display.width", 120)
pd.set_option("display.precision", 4)

df = pd.read_json(DATA, lines=True, dtype=False)
print(df[["id", "detector", "lang", "ref_spans", "pred_spans"]].head(4).to_string())
print(f"\n{len(df)} rows: {df['detector'].nunique()} detectors x "
      f"{df['id'].nunique()} examples")

# %% [markdown]
# ## Grouped scores: one tidy row per (detector, language, metric, measure)
#
# Each group's numbers are exactly what ``mycelium.evaluate`` gives on that group's rows.

# %%
tidy = df.mycelium.evaluate("ref_spans", "pred_spans", text="text",
                            by=["detector", "lang"], profile="mu_shroom")
print(tidy.head(8))
print("signature:", tidy.attrs["mycelium_signature"])

# Wide view: IoU per detector (rows) and language (columns).
iou = tidy[tidy["metric"] == "iou"].pivot(index="detector", columns="lang", values="value")
print("\nMu-SHROOM IoU by language (macro over examples):")
print(iou.round(3))

# %% [markdown]
# ## The same detectors under the Mu-SHROOM and RAGTruth conventions
#
# Mu-SHROOM averages per-example values (macro); RAGTruth pools the character counts
# of the whole batch (micro). The values move with the convention; here the winner
# moves with the metric.

# %%
HEADLINE = {"iou": "score", "character": "f1", "exact_span": "f1", "deteval_1d": "f1",
            "cleval_1d": "f1", "span_coverage": "f1"}

by_profile = pd.concat([
    df.mycelium.evaluate("ref_spans", "pred_spans", text="text", by="detector",
                         profile=profile)
    for profile in ("mu_shroom", "ragtruth")
])
headline = by_profile[by_profile["measure"] == by_profile["metric"].map(HEADLINE)]
comparison = headline.pivot_table(index="detector", columns=["metric", "profile"],
                                  values="value")
# One row per (metric, profile), one column per detector, and the winner of each row.
comparison = comparison.T.reindex(list(HEADLINE), level=0)
comparison["best"] = comparison.idxmax(axis=1)
print(comparison.round(3).to_string())
print("\nThe winner changes with the metric: span_coverage crowns pinpoint, "
      "every overlap measure crowns careful.")

# %% [markdown]
# ## Per-row scores
#
# ``df.mycelium.score`` returns one row per input row with the caller's index, so it
# joins straight back onto the data, e.g. to look at the examples a detector misses.

# %%
scores = df.mycelium.score("ref_spans", "pred_spans", text="text",
                           metrics=["iou", "character", "span_coverage"])
rows = df.join(scores)
worst = (rows[rows["detector"] == "careful"]
         .sort_values("iou_score")
         .loc[:, ["id", "lang", "ref_spans", "pred_spans", "iou_score", "character_f1"]])
print("The careful detector's weakest examples:")
print(worst.head(5).to_string(index=False))

# %% [markdown]
# ## Under-coverage: the ``pinpoint`` detector
#
# ``pinpoint`` marks one character in the middle of each annotated span. Every
# prediction lies inside an annotation and every annotation is hit, so Span Coverage
# is perfect; but it recovers only a sliver of each span, which IoU and character F1
# see at once.

# %%
micro = by_profile[by_profile["profile"] == "ragtruth"]
coverage = micro[micro["measure"] == micro["metric"].map(HEADLINE)].pivot(
    index="detector", columns="metric", values="value")[["span_coverage", "iou", "character"]]
print("RAGTruth profile (micro): span_coverage F1 vs IoU and character F1")
print(coverage.round(3).to_string())

example = rows[(rows["detector"] == "pinpoint") & (rows["ref_spans"].map(len) > 0)].iloc[0]


def marked(text: str, spans) -> str:
    """The text with each span in [brackets] (spans sorted and disjoint here)."""
    out, last = [], 0
    for start, end in sorted(spans):
        out += [text[last:start], "[", text[start:end], "]"]
        last = end
    return "".join(out + [text[last:]])


print("\nreference:", marked(example["text"], example["ref_spans"]))
print("pinpoint: ", marked(example["text"], example["pred_spans"]))
print(f"span_coverage F1 = {example['span_coverage_f1']:.2f}, "
      f"IoU = {example['iou_score']:.2f}")

# %% [markdown]
# ## A figure (needs matplotlib, which is not a dependency of mycelium)

# %%
try:
    import matplotlib

    matplotlib.use("Agg")  # write files only; no display needed
    import matplotlib.pyplot as plt
except ImportError:
    plt = None
    print("matplotlib is not installed: skipping the figure "
          "(pip install matplotlib to draw it).")

if plt is not None:
    OUTPUT.mkdir(exist_ok=True)
    detectors = list(coverage.index)
    x = range(len(detectors))
    width = 0.38
    fig, ax = plt.subplots(figsize=(7, 4), dpi=150)
    bars_cov = ax.bar([i - width / 2 for i in x], coverage["span_coverage"], width,
                      label="Span Coverage F1", color="#4C72B0")
    bars_iou = ax.bar([i + width / 2 for i in x], coverage["iou"], width,
                      label="IoU (characters)", color="#DD8452")
    for bars in (bars_cov, bars_iou):
        ax.bar_label(bars, fmt="%.2f", fontsize=8, padding=2)
    ax.set_xticks(list(x), detectors)
    ax.set_ylim(0, 1.12)
    ax.set_xlabel("detector")
    n = int(micro["examples"].iloc[0])
    ax.set_ylabel(f"score (0 to 1; RAGTruth profile,\nmicro over {n} examples)")
    ax.set_title(f"pinpoint gets a perfect Span Coverage F1 but an IoU of "
                 f"{coverage.loc['pinpoint', 'iou']:.2f}:\n"
                 "report Span Coverage only next to an overlap measure", fontsize=10)
    ax.legend(loc="upper right", fontsize=8, frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    figure = OUTPUT / "pinpoint_coverage.png"
    fig.savefig(figure)
    plt.close(fig)
    print(f"wrote {figure}")
