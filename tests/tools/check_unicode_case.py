#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Differential test of ocml's Python string methods against CPython, on every code point.

Every code point that CPython's Unicode database assigns (and the private-use ones of the
BMP; surrogates cannot be in UTF-8) is put, in chunks, in contexts that exercise each rule:

  " c "   title() and capitalize() of c alone (its titlecase), upper(), lower(), casefold()
  "Ac"    c after a cased letter: title() lower-cases it
  "AcΣ"   Σ after c: final (ς) when c is cased or case-ignorable, else σ
  "AΣc"   Σ before c: σ when c is cased, ς when c is case-ignorable or neither (then end)

and a template applies upper, lower, title, capitalize, swapcase, casefold, Jinja2's
`title`/`upper`/`lower`/`capitalize` filters and the predicates isupper, islower, istitle,
isalpha, isdigit, isdecimal, isnumeric, isalnum to each chunk (the predicates to each code
point). `ocml render --template` and Python Jinja2 (render_template.py) render the same
requests; every line must be equal. Code points that CPython leaves unassigned are skipped:
ocml's ICU may know a newer Unicode version, and then no answer is "Python's". So are the
few whose case properties a later Unicode version changed (CHANGED_IN, below), when
CPython's database is older than that version (Debian 12: CPython 3.11 has Unicode 14.0,
ICU 72 has 15.0).

usage: check_unicode_case.py OCML_BINARY   (exit 77: python3-jinja2 is absent)
"""
import json
import os
import subprocess
import sys
import tempfile
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    from render_template import make_environment, render_line  # noqa: E402
except ImportError:
    print("SKIP: python3-jinja2 is not installed")
    sys.exit(77)

TEMPLATE = """{%- set c = s -%}
U{{ c.upper() }}
L{{ c.lower() }}
T{{ c.title() }}
C{{ c.capitalize() }}
S{{ c.swapcase() }}
F{{ c.casefold() }}
t{{ c|title }}
u{{ c|upper }}{{ c|lower }}{{ c|capitalize }}
P{% for x in p %}{{ x.isupper()|int }}{{ x.islower()|int }}{{ x.istitle()|int }}{{ x.isalpha()|int }}{{ x.isdigit()|int }}{{ x.isdecimal()|int }}{{ x.isnumeric()|int }}{{ x.isalnum()|int }}{{ x is upper }}{{ x is lower }}{% endfor %}
"""

CHUNK = 2048

# Unicode version -> code points whose case properties it changed (DerivedCoreProperties):
# 15.0 made MODIFIER LETTER GEORGIAN NAR, MODIFIER LETTER CAPITAL C, F, Q and MODIFIER
# LETTER SMALL TURNED W Other_Lowercase.
CHANGED_IN = {(15, 0): [0x10FC, 0xA7F2, 0xA7F3, 0xA7F4, 0xAB69]}


def version(v):
    return tuple(int(x) for x in v.split(".")[:2])


SKIP = {cp for v, cps in CHANGED_IN.items()
        if version(unicodedata.unidata_version) < v for cp in cps}


def code_points():
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF or cp in SKIP:
            continue
        cat = unicodedata.category(chr(cp))
        if cat == "Cn" or (cat == "Co" and cp > 0xFFFF):
            continue
        yield chr(cp)


def requests():
    chunk = []
    for c in code_points():
        chunk.append(c)
        if len(chunk) == CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def context(chars):
    return "".join(" " + c + " A" + c + " A" + c + "\u03a3 A\u03a3" + c for c in chars)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    ocml = sys.argv[1]
    env = make_environment()
    template = env.from_string(TEMPLATE)
    with tempfile.TemporaryDirectory() as tmp:
        tpath = os.path.join(tmp, "case.jinja")
        ipath = os.path.join(tmp, "in.jsonl")
        with open(tpath, "w", encoding="utf-8") as f:
            f.write(TEMPLATE)
        lines = []
        count = 0
        with open(ipath, "w", encoding="utf-8") as f:
            for chunk in requests():
                count += len(chunk)
                req = {"messages": [], "chat_template_kwargs": {"s": context(chunk),
                                                                 "p": "".join(chunk)}}
                line = json.dumps(req, ensure_ascii=False)
                lines.append(line)
                f.write(line + "\n")
        proc = subprocess.Popen([ocml, "render", "--template", tpath, "--jsonl", ipath],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        bad = 0
        for i, (line, got) in enumerate(zip(lines, proc.stdout)):
            want = render_line(template, line, {})
            out = json.loads(got)
            if out.get("text") == want:
                continue
            bad += 1
            if bad <= 5:
                text = out.get("text", "")
                wl, gl = want.split("\n"), text.split("\n")
                for w, g in zip(wl, gl):
                    if w == g:
                        continue
                    k = next((k for k in range(min(len(w), len(g))) if w[k] != g[k]),
                             min(len(w), len(g)))
                    print(f"chunk {i}: {w[:1]} differs at {k}: python {w[max(0, k - 8):k + 8]!r}"
                          f" ocml {g[max(0, k - 8):k + 8]!r}"
                          f" (U+{ord(w[k]) if k < len(w) else 0:04X})")
                if len(wl) != len(gl):
                    print(f"chunk {i}: {out}"[:300])
        proc.wait()
        print(f"{count} code points in {len(lines)} chunks (Unicode {unicodedata.unidata_version}):"
              f" {bad} chunks differ")
        return 1 if bad or proc.returncode not in (0,) else 0


if __name__ == "__main__":
    sys.exit(main())
