#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every reference chat template through response-template derivation (issue 26): which
derive and verify by round trip (and what was found), which are refused and why, and which
response template `-d model:PATH` takes for each (its own, curated, derived). Prints the
Markdown table of docs/response-templates.md ("Derivation on the reference templates");
with --check FILE, exits 1 when the table in FILE differs from what the build gives now.

usage: derive_report.py OCML [--templates DIR] [--check docs/response-templates.md]
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

SOURCE = pathlib.Path(__file__).resolve().parents[2]
BEGIN = "<!-- derive_report: begin -->"
END = "<!-- derive_report: end -->"


def row(ocml: str, path: pathlib.Path) -> str:
    derive = subprocess.run([ocml, "template", "derive", str(path)], capture_output=True,
                            text=True)
    found = [l[7:] for l in derive.stderr.splitlines() if l.startswith("found: ")]
    verified = [l[10:] for l in derive.stderr.splitlines() if l.startswith("verified: ")]
    if derive.returncode == 0:
        calls = next((f for f in found if f.startswith("calls: ")), "calls: none")
        reasoning = next((f[11:] for f in found if f.startswith("reasoning: ")), "-")
        outcome = f"verified ({', '.join(verified)})"
        detail = f"reasoning {reasoning}; {calls}".replace("|", "\\|").replace("\n", " ")[:200]
    else:
        message = derive.stderr.strip().splitlines()[-1] if derive.stderr.strip() else "?"
        message = message.replace("E-RESPONSE-TEMPLATE ", "")
        outcome = "refused"
        detail = message.split(": rendered ")[0].replace("|", "\\|")[:160]
    # What a model folder holding only this chat template parses with.
    with tempfile.TemporaryDirectory() as folder:
        config = pathlib.Path(folder) / "tokenizer_config.json"
        config.write_text(json.dumps({"chat_template": path.read_text(encoding="utf-8")}),
                          encoding="utf-8")
        explain = subprocess.run([ocml, "formats", "--explain", folder, "--json"],
                                 capture_output=True, text=True)
    try:
        choice = json.loads(explain.stdout)
        used = choice["kind"] + (f" {choice['name']}" if choice["name"] else "")
    except ValueError:
        used = "none"
    return f"| `{path.name}` | {outcome} | {used} | {detail} |"


def table(ocml: str, templates: pathlib.Path) -> str:
    files = sorted(templates.glob("models/*.jinja")) + sorted(templates.glob("*.jinja"))
    lines = ["| chat template | derivation | `-d model:` parses with | found, or why refused |",
             "|---|---|---|---|"]
    lines += [row(ocml, f) for f in files]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("ocml")
    ap.add_argument("--templates", default=str(SOURCE.parent / "shared" / "reference" /
                                                "templates"))
    ap.add_argument("--check")
    args = ap.parse_args()
    templates = pathlib.Path(args.templates)
    if not templates.is_dir():
        print(f"skipped: {templates} is absent")
        return 0
    now = table(args.ocml, templates)
    if args.check:
        text = pathlib.Path(args.check).read_text(encoding="utf-8")
        written = text.split(BEGIN)[1].split(END)[0].strip()
        if written != now:
            print("the derivation table differs from the build's; regenerate it with\n"
                  f"  {sys.argv[0]} {args.ocml}\n--- now:\n{now}")
            return 1
        return 0
    print(now)
    return 0


if __name__ == "__main__":
    sys.exit(main())
