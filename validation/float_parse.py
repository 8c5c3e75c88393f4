"""``python -m validation.float_parse [--tokens N] [--seed S]``: mycelium's reading of
numbers as the official Mu-SHROOM scorer reads them, against ``pandas.read_json`` itself.

`random_tokens` draws the forms a JSON writer produces or a parser must survive: 1-20
significant digits, leading zeros in the fraction (``0.000123``), ``ddd.ddd``,
integers written as floats (``5.0``, ``5.000``), exponents (``e``/``E``, with and
without a sign, up to overflow and underflow), plain integers, negatives, and with
``leading_zeros`` leading zeros in the integer part too (``007.5``: not JSON, which
``pandas.read_json`` reads all the same). `pandas_reads` is what ``pandas.read_json``
with its default ``precise_float=False`` makes of them, read as the official scorer
reads a file (JSON lines, the numbers inside a list column).

The command draws N tokens (default 4,000,000; a quarter of them with leading zeros in
the integer part), reads them with pandas, with `mycelium.io.float_parse.pandas_fast_float`
and with `mycelium.io.float_parse.pandas_fast_values`, and prints how many tokens were
read, how many pandas rejects (an integer part past 64 bits; each must be rejected by
mycelium too) and how many values differ by even one bit. Exit status 1 on any
difference. ``tests/io/test_float_parse.py`` runs the same on 210,000 tokens.
"""

from __future__ import annotations


import argparse
import io
import random
import sys

import numpy as np
import pandas as pd

from mycelium.io.float_parse import FloatParseError, pandas_fast_float, pandas_fast_values


def random_token(rng: random.Random, leading_zeros: bool = False) -> str:
    sig = rng.randint(1, 20)
    digits = "".join(rng.choice("0123456789") for _ in range(sig))
    if digits[0] == "0" and sig > 1 and rng.random() < 0.7:
        digits = rng.choice("123456789") + digits[1:]
    form = rng.random()
    if form < 0.45:  # 0.000ddd: zeros in the fraction count against the 15 kept digits
        token = "0." + "0" * rng.choice([0, 0, 0, 1, 2, 3, 5, 8, 12, 16]) + digits
    elif form < 0.75:  # ddd.ddd
        k = rng.randint(1, sig)
        token = (digits[:k].lstrip("0") or "0") + "." + (digits[k:] or "0")
    elif form < 0.85:  # integers written as floats
        token = (digits.lstrip("0") or "0") + "." + "0" * rng.randint(1, 4)
    elif form < 0.95:  # d.ddde[+-]x
        token = digits[0] + ("." + digits[1:] if sig > 1 else "")
        token += rng.choice("eE") + rng.choice(["", "+", "-"]) + str(rng.choice(
            [rng.randint(0, 25), rng.randint(0, 330), rng.randint(290, 400)]))
    else:  # a plain integer (20 digits may overflow 64 bits)
        token = digits.lstrip("0") or "0"
    if leading_zeros and rng.random() < 0.5:
        token = "0" * rng.randint(1, 3) + token
    if rng.random() < 0.3:
        token = "-" + token
    return token


def random_tokens(n: int, seed: int, leading_zeros: bool = False) -> list[str]:
    rng = random.Random(seed)
    return [random_token(rng, leading_zeros) for _ in range(n)]


def pandas_reads(tokens: list[str], per_line: int = 1000) -> list:
    """``pandas.read_json(lines=True)`` of the tokens, ``per_line`` to a list per line."""
    lines = ['{"p": [%s]}' % ", ".join(tokens[i:i + per_line])
             for i in range(0, len(tokens), per_line)]
    frame = pd.read_json(io.StringIO("\n".join(lines) + "\n"), lines=True)
    return [x for row in frame["p"] for x in row]


def pandas_rejects(token: str) -> bool:
    """Whether ``pandas.read_json`` fails on a line holding this one number."""
    try:
        pd.read_json(io.StringIO('{"p": [%s]}\n' % token), lines=True)
    except ValueError:
        return True
    return False


def compare(tokens: list[str]) -> dict[str, int]:
    """Counts of one batch: tokens, rejected by both, and differences of each reader."""
    kept, rejected, disagree = [], 0, 0
    for t in tokens:
        try:
            pandas_fast_float(t)
        except FloatParseError:
            rejected += 1
            disagree += not pandas_rejects(t)
            continue
        kept.append(t)
    want = np.array(pandas_reads(kept), dtype=np.float64)
    scalar = np.array([pandas_fast_float(t) for t in kept], dtype=np.float64)
    text = ", ".join(kept) + " " * 64
    lengths = np.array([len(t) + 2 for t in kept], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    values, ends = pandas_fast_values(np.frombuffer(text.encode(), dtype=np.uint8), starts)
    return {"tokens": len(tokens), "read": len(kept), "rejected by both": rejected,
            "rejected by mycelium only": disagree,
            "scalar differs": int(np.count_nonzero(scalar.view(np.int64)
                                                   != want.view(np.int64))),
            "vectorised differs": int(np.count_nonzero(values.view(np.int64)
                                                       != want.view(np.int64))
                                      + np.count_nonzero(ends - starts != lengths - 2))}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tokens", type=int, default=4_000_000)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    total: dict[str, int] = {}
    batch, done, k = 200_000, 0, 0
    while done < args.tokens:
        n = min(batch, args.tokens - done)
        counts = compare(random_tokens(n, args.seed * 100_003 + k, leading_zeros=k % 4 == 3))
        for key, value in counts.items():
            total[key] = total.get(key, 0) + value
        done, k = done + n, k + 1
    print(f"pandas {pd.__version__}, numpy {np.__version__}: " + ", ".join(
        f"{key} {value:,}" for key, value in total.items()))
    bad = total["rejected by mycelium only"] + total["scalar differs"] + \
        total["vectorised differs"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
