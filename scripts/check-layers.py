#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The floors of src/ (docs/decisions.md 76), checked on every include:

    core < interchange < dialects < tokens, dataset < template, response < api < runtime < capi

A file may include its own floor and the floors below it, never one above. The tools
(tools/) and the bindings (python/, src/capi/) include only the public headers (include/ocml/) and their own
files, and write no `detail::`. Known exceptions still to be removed are listed in
scripts/layers-allowed.txt ("path: what"); one that no longer occurs must be deleted from
the list, so the list only shrinks.

usage: check-layers.py [--count]        the includes (--count: print the figures only)
       check-layers.py --objects MARKUP_DIR --objects DIR…  the calls, from the libraries'
                                      object files (the first: the markup library's)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLOORS = {"core": 0, "interchange": 1, "dialects": 2, "tokens": 3, "dataset": 3, "template": 4,
          "response": 4, "api": 5, "runtime": 6, "capi": 7}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def files(top, exts=(".cpp", ".hpp")):
    for d, _, names in os.walk(os.path.join(ROOT, top)):
        for n in sorted(names):
            if n.endswith(exts):
                yield os.path.relpath(os.path.join(d, n), ROOT)


def findings():
    out = []
    for path in files("src"):
        floor = path.split("/")[1]
        if floor not in FLOORS:
            out.append(f"{path}: a folder of src/ with no floor")
            continue
        for line in open(os.path.join(ROOT, path), encoding="utf-8"):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1).split("/")[0]
            if target in FLOORS and FLOORS[target] > FLOORS[floor]:
                out.append(f"{path}: includes {m.group(1)} ({target} is above {floor})")
    for top in ("tools", "python", "src/capi"):
        for path in files(top):
            own = os.path.dirname(path)
            for n, line in enumerate(open(os.path.join(ROOT, path), encoding="utf-8"), 1):
                m = INCLUDE.match(line)
                if m and not m.group(1).startswith("ocml/") and not os.path.exists(
                        os.path.join(ROOT, own, m.group(1))):
                    out.append(f"{path}: includes {m.group(1)} (not a public header)")
                if "detail::" in line and not line.lstrip().startswith("//"):
                    out.append(f"{path}: detail:: on line {n}")
    return out


def link_findings(object_dirs):
    """Calls across floors, read from the libraries' object files: an undefined symbol of an
    object on one floor that an object on a higher floor defines, and a call from the markup
    library (the first directory) into another library."""
    import subprocess
    defined, wanted, library = {}, [], {}
    for objects in object_dirs:
      for d, _, names in os.walk(objects):
        for n in sorted(names):
            if not n.endswith(".cpp.o"):
                continue
            obj = os.path.join(d, n)
            src = os.path.join("src", os.path.relpath(obj, objects))[:-2]
            if not os.path.exists(os.path.join(ROOT, src)):
                continue  # an object left from a file since moved
            if src in library:
                continue  # a stale copy left in another library's folder
            library[src] = objects
            floor = src.split("/")[1]
            nm = subprocess.run(["nm", "-g", obj], capture_output=True, text=True, check=True)
            for line in nm.stdout.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] in "TDBR":
                    defined.setdefault(parts[2], src)
                elif len(parts) == 2 and parts[0] == "U":
                    wanted.append((src, floor, parts[1]))
    out = set()
    for src, floor, sym in wanted:
        owner = defined.get(sym)
        if owner and FLOORS.get(owner.split("/")[1], 0) > FLOORS.get(floor, 0):
            out.add(f"{src}: calls into {owner} ({owner.split('/')[1]} is above {floor})")
        if owner and len(object_dirs) > 1 and library[src] == object_dirs[0] \
                and library[owner] != object_dirs[0]:
            out.add(f"{src}: the markup library calls into {owner}, outside it")
    return sorted(out)


def main():
    if "--objects" in sys.argv:
        dirs = [sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--objects"]
        found = link_findings(dirs)
        for f in found:
            print(f"layers: {f}")
        print(f"layers: {len(found)} calls across floors")
        return 1 if found else 0
    found = findings()
    allowed_path = os.path.join(ROOT, "scripts", "layers-allowed.txt")
    allowed = [l.rstrip("\n") for l in open(allowed_path, encoding="utf-8")
               if l.strip() and not l.startswith("#")]
    # detail:: lines are allowed by file and count ("path: detail:: xN").
    def key(f):
        return re.sub(r" on line \d+$", "", f)
    counted = {}
    for f in found:
        counted[key(f)] = counted.get(key(f), 0) + 1
    entries = [k if n == 1 and "detail::" not in k else f"{k} x{n}" for k, n in sorted(counted.items())]
    if "--count" in sys.argv:
        print("\n".join(entries))
        print(f"{len(found)} findings")
        return 0
    new = [e for e in entries if e not in allowed]
    gone = [a for a in allowed if a not in entries]
    for e in new:
        print(f"layers: {e}")
    for a in gone:
        print(f"layers: '{a}' no longer occurs: delete it from scripts/layers-allowed.txt")
    if new or gone:
        return 1
    print(f"layers: {len(list(files('src')))} files of src/ on their floors; "
          f"{len(allowed)} known exceptions left (scripts/layers-allowed.txt)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
