#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The clang-tidy ledger: which translation units clang-tidy has already found clean.

A unit's key is the SHA-256 of everything clang-tidy's verdict depends on: clang-tidy's
version, .clang-tidy, the checks argument, and the unit's preprocessed text (every header
it includes, with their paths made relative to the checkout). A unit whose key is in
scripts/tidy-ledger.txt gave no finding with exactly these inputs, so scripts/tidy.sh
checks only the others; OCML_TIDY_FULL=1 checks all (docs/decisions.md 101).

  tidy_ledger.py stale BUILD_DIR CHECKS FILE...  prints the files to check, and keeps
                                                 every file's key in BUILD_DIR/tidy-keys.txt
  tidy_ledger.py record BUILD_DIR                 makes those keys the ledger (run after
                                                 clang-tidy found no finding in them)
"""
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEDGER = os.path.join(ROOT, "scripts", "tidy-ledger.txt")


def base_key(checks):
    h = hashlib.sha256()
    h.update(subprocess.run(["clang-tidy", "--version"], capture_output=True, text=True,
                            check=True).stdout.encode())
    with open(os.path.join(ROOT, ".clang-tidy"), "rb") as f:
        h.update(f.read())
    h.update(checks.encode())
    return h.digest()


def unit_key(base, entry):
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a == "-c":
            continue
        out.append(a)
    out += ["-E", "-o", "-"]
    pre = subprocess.run(out, cwd=entry["directory"], capture_output=True, check=True).stdout
    pre = pre.replace(ROOT.encode() + b"/", b"./")
    h = hashlib.sha256(base)
    h.update(os.path.relpath(entry["file"], ROOT).encode())
    h.update(pre)
    return h.hexdigest()


def keys(build, checks, files):
    with open(os.path.join(build, "compile_commands.json")) as f:
        db = {os.path.realpath(e["file"]): e for e in json.load(f)}
    base = base_key(checks)
    todo = [(f, db.get(os.path.realpath(os.path.join(ROOT, f)))) for f in files]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        got = pool.map(lambda fe: (fe[0], unit_key(base, fe[1]) if fe[1] else None), todo)
        return dict(got)


def main():
    mode, build = sys.argv[1], sys.argv[2]
    pending = os.path.join(build, "tidy-keys.txt")
    if mode == "record":
        with open(pending) as f, open(LEDGER, "w") as out:
            out.write("# clang-tidy found these units clean (scripts/tidy_ledger.py)\n")
            out.write(f.read())
        return
    if mode != "stale":
        sys.exit("mode: stale or record")
    checks, files = sys.argv[3], sys.argv[4:]
    k = keys(build, checks, files)
    known = set()
    if os.path.exists(LEDGER):
        with open(LEDGER) as f:
            known = {line.split()[0] for line in f if line.strip() and not line.startswith("#")}
    with open(pending, "w") as out:
        for f in sorted(files):
            if k[f] is not None:
                out.write("%s %s\n" % (k[f], f))
    for f in files:
        if k[f] is None or k[f] not in known:
            print(f)


if __name__ == "__main__":
    main()
