"""``mycelium data``: the benchmark registry and the local cache (`mycelium.datasets`).

``list [--format json]``, ``info NAME``, ``verify NAME``, ``path NAME``,
``add NAME PATH [--link]`` and ``fetch NAME``. The cache folder is ``$MYCELIUM_DATA_DIR``,
else the platform's data folder. ``verify`` exits with 1 and names each changed file.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..datasets import (DATA_DIR_ENV, add, benchmarks, data_dir, fetch, get_benchmark,
                        is_data_name, registered, resolve, root, verify)

DESCRIPTION = f"""\
Benchmarks by name: what each is (version, splits, languages, files with their
SHA-256, licence, citation, loader) and where its local copy is.

Offline first: register a copy you have with 'mycelium data add NAME PATH' (every
file is checked against the registry's SHA-256 first); 'fetch' downloads the files
that have a URL (needs pooch: pip install 'mycelium-eval[fetch]'). Loaders then
take a name where they took a path, e.g. read_mushroom("mu_shroom:test:en").

The cache folder is ${DATA_DIR_ENV} when set, else the platform's data folder
(~/.local/share/mycelium on Linux)."""


def add_parser(commands) -> None:
    p = commands.add_parser("data", help="the benchmark registry and the local cache",
                            formatter_class=argparse.RawDescriptionHelpFormatter,
                            description=DESCRIPTION)
    sub = p.add_subparsers(dest="data_command", required=True, metavar="ACTION")
    ls = sub.add_parser("list", help="every registered benchmark")
    ls.add_argument("--format", choices=("text", "json"), default="text")
    ls.set_defaults(run=run_list)
    info = sub.add_parser("info", help="a benchmark's files, hashes, licence and citation")
    info.add_argument("name", metavar="NAME")
    info.add_argument("--format", choices=("text", "json"), default="text")
    info.set_defaults(run=run_info)
    ver = sub.add_parser("verify", help="re-hash the registered copy; exit 1 naming any "
                                        "changed file")
    ver.add_argument("name", metavar="NAME")
    ver.set_defaults(run=run_verify)
    path = sub.add_parser("path", help="where the registered copy (or the files of "
                                       "NAME:SPLIT[:LANG]) is")
    path.add_argument("name", metavar="NAME")
    path.set_defaults(run=run_path)
    addp = sub.add_parser("add", help="register a local copy after checking its hashes")
    addp.add_argument("name", metavar="NAME")
    addp.add_argument("path", metavar="PATH", help="the folder holding the files")
    addp.add_argument("--link", action="store_true",
                      help="record the files where they are instead of copying them into "
                           "the cache")
    addp.set_defaults(run=run_add)
    fet = sub.add_parser("fetch", help="download the files that have a URL, then add them")
    fet.add_argument("name", metavar="NAME")
    fet.set_defaults(run=run_fetch)
    for action in (ls, info, ver, path, addp, fet):
        action.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                            help="on an error, print the full traceback")
        action.set_defaults(parser=action)


def _summary(b) -> dict:
    out = b.to_dict()
    out["registered"] = registered(b.name) is not None
    return out


def run_list(args: argparse.Namespace) -> int:
    entries = benchmarks()
    if args.format == "json":
        print(json.dumps([_summary(b) for b in entries], indent=1, ensure_ascii=False))
        return 0
    print(f"{'name':<16} {'registered':<11} {'files':>5}  version")
    for b in entries:
        mark = "yes" if registered(b.name) is not None else "no"
        print(f"{b.name:<16} {mark:<11} {len(b.files):>5}  {b.version}")
    print(f"\ncache: {data_dir()}")
    return 0


def run_info(args: argparse.Namespace) -> int:
    b = get_benchmark(args.name)
    if args.format == "json":
        print(json.dumps(_summary(b), indent=1, ensure_ascii=False))
        return 0
    info = b.info
    lines = [f"{b.name}: {info.get('title', '')}", f"version:   {b.version}",
             f"source:    {info.get('source')}",
             f"splits:    {', '.join(b.splits)}", f"languages: {', '.join(b.languages)}",
             f"loader:    {b.loader or info.get('loader_note', '-')}",
             f"licence:   {b.licence}"]
    if info.get("hash_note"):
        lines.append(f"hashes:    {info['hash_note']}")
    lines.append(f"registered: {'yes' if registered(b.name) else 'no'} (cache {data_dir()})")
    lines.append("files:")
    for f in b.files:
        lines.append(f"  {f.sha256 or '(sha256 recorded by data add)':<64}  {f.path}")
    lines.append("citation:")
    lines.append(b.citation or f"  ({info.get('citation_note', 'none')})")
    print("\n".join(lines))
    return 0


def run_verify(args: argparse.Namespace) -> int:
    problems = verify(args.name)
    manifest = registered(args.name) or {"files": {}}
    if problems:
        for p in problems:
            print(f"mycelium: error: changed file {p}", file=sys.stderr)
        return 1
    print(f"{args.name}: {len(manifest['files'])} files OK")
    return 0


def run_path(args: argparse.Namespace) -> int:
    if ":" in args.name and is_data_name(args.name):
        for path in resolve(args.name):
            print(path)
        return 0
    print(root(get_benchmark(args.name).name))  # raises, saying how to add it, if none
    return 0


def run_add(args: argparse.Namespace) -> int:
    reg = add(args.name, args.path, link=args.link)
    if reg.linked:
        print(f"{reg.name}: {len(reg.files)} files checked and registered where they are "
              f"({args.path}); the registration is in {reg.folder}")
    else:
        print(f"{reg.name}: {len(reg.files)} files checked and copied into {reg.folder}")
    if reg.missing:
        print(f"not found in {args.path} ({len(reg.missing)}): {', '.join(reg.missing)}")
    return 0


def run_fetch(args: argparse.Namespace) -> int:
    reg = fetch(args.name)
    print(f"{reg.name}: {len(reg.files)} files downloaded, checked and registered in "
          f"{reg.folder}")
    if reg.missing:
        print(f"without a URL ({len(reg.missing)}): {', '.join(reg.missing)}")
    return 0
