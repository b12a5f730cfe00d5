#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Differential test on chat templates ocml's own corpus never saw: every .jinja file of a
folder (tests/template/extra: vLLM's and SGLang's example templates, as published, with
their sources in SOURCES.tsv) renders every request of a JSON-lines file
(tests/template/extra-requests.jsonl: content parts, documents, reasoning,
continue_final_message, chat_template_kwargs, tool calls, edge numbers such as NaN and
2**100, Unicode) with `ocml render --template --jsonl` and with Python Jinja2
(render_template.py). Each line must give the same text, or an error with the same code.

Two pairs of codes count as the same outcome: a line json.loads refuses is E-JSON-INPUT to
ocml (the reference calls every Python exception E-TEMPLATE-TYPE), and Python's
RecursionError (E-TEMPLATE-TYPE, "maximum recursion depth") is ocml's bounded macro depth,
E-LIMIT-EXCEEDED (docs/decisions.md 52).

usage: check_template_corpus.py OCML_BINARY TEMPLATE_DIR REQUESTS.jsonl
exit 0: all agree; 1: some differ (each listed); 77: python3-jinja2 is absent.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KWARGS = '{"bos_token": "<s>", "eos_token": "</s>"}'
NOW = "2026-01-15T10:30:00"


def same(py, oc, request_line):
    if "text" in py or "text" in oc:
        return py.get("text") == oc.get("text")
    a, b = py["error"]["code"], oc["error"]["code"]
    if a == b:
        return True
    if a == "E-TEMPLATE-TYPE" and b == "E-JSON-INPUT":
        try:
            json.loads(request_line)
            return False
        except ValueError:
            return True
    return (a == "E-TEMPLATE-TYPE" and b == "E-LIMIT-EXCEEDED"
            and "recursion" in py["error"].get("message", ""))


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    try:
        import jinja2  # noqa: F401
    except ImportError:
        print("SKIP: python3-jinja2 is not installed")
        return 77
    ocml, folder, requests = sys.argv[1:]
    with open(requests, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    env = dict(os.environ, OCML_TEMPLATE_NOW=NOW)
    templates = sorted(glob.glob(os.path.join(folder, "*.jinja")))
    compared = differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "ref.jsonl")
        for t in templates:
            subprocess.run([sys.executable, os.path.join(HERE, "render_template.py"), t, requests,
                            ref, "--template-kwargs", KWARGS], env=env, check=True)
            with open(ref, encoding="utf-8") as f:
                py = [json.loads(x) for x in f.read().split("\n") if x]
            p = subprocess.run([ocml, "render", "--template", t, "--jsonl", requests,
                                "--template-kwargs", KWARGS, "--now", NOW, "-q"],
                               capture_output=True, env=env)
            oc = [json.loads(x) for x in p.stdout.decode("utf-8").split("\n") if x]
            name = os.path.basename(t)
            if len(oc) != len(py):
                print(f"{name}: {len(oc)} output lines for {len(py)} requests "
                      f"({p.stderr.decode()[:200]})")
                differ += len(py)
                continue
            for i, (a, b) in enumerate(zip(py, oc)):
                compared += 1
                if not same(a, b, lines[i]):
                    differ += 1
                    print(f"{name} line {i + 1}: python {json.dumps(a, ensure_ascii=False)[:300]}"
                          f"\n    ocml {json.dumps(b, ensure_ascii=False)[:300]}")
    print(f"{len(templates)} templates, {compared} lines compared, {differ} differ")
    return 1 if differ or not templates else 0


if __name__ == "__main__":
    sys.exit(main())
