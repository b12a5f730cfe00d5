#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The family scoreboard of issue 26: every case of tests/families/*.jsonl parsed by ocml the
way a user with only the model's chat template would parse it (`ocml.ChatTemplate` of the
case's real template, and the response template ocml finds for it), compared as
docs/decisions.md 89 says. Prints one line per family and the total; with --verbose, each
miss.

usage: check_families.py [--verbose] [--templates DIR] [--response FAMILY=FILE ...]

--response gives a family a response template file (what ocml will find on its own when
issue 26 is done); without one a family's cases count as refused, as `-d model:PATH` refuses
a folder without a response template today. Needs the ocml package (PYTHONPATH=build/python)
and ../shared/reference/templates/models.
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import sys
import warnings

import ocml

SOURCE = pathlib.Path(__file__).resolve().parents[2]


def norm_text(value):
    if value is None:
        return None
    value = value.strip()
    return value or None


def norm_message(m: dict) -> dict:
    calls = []
    for c in m.get("tool_calls") or []:
        fn = c.get("function", c)
        args = fn.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                pass
        calls.append({"name": fn.get("name"), "arguments": args})
    return {"content": norm_text(m.get("content")),
            "reasoning_content": norm_text(m.get("reasoning_content")),
            "tool_calls": calls}


def prefix_of(chat: ocml.ChatTemplate, case: dict) -> str:
    """The generation prompt the output continues: the template's own, for one user turn."""
    request = {"messages": [{"role": "user", "content": "Hi"}], "add_generation_prompt": True}
    if case.get("tools"):
        request["tools"] = case["tools"]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            prompt = chat.render(request, bos_token="<s>", eos_token="</s>")
    except ocml.Error:
        prompt = ""
    tail = case.get("prompt_tail") or ""
    return prompt if prompt.endswith(tail) else prompt + tail


def check(case: dict, fmt, chat) -> tuple[bool, str]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = ocml.parse(case["output"], format=fmt, completion=True,
                             prefix=prefix_of(chat, case), tools=case.get("tools"),
                             lenient=case["kind"] != "complete", call_id_seed=1)
    except ocml.Error as e:
        return False, f"{e.code}: {e.message[:120]}"
    messages = [m for m in out.get("messages", []) if m.get("role") == "assistant"]
    got = norm_message(messages[-1] if messages else {})
    want = norm_message(case["expected"])
    if got == want:
        return True, ""
    return False, f"got {json.dumps(got, ensure_ascii=False)[:300]}"


def score(responses: dict, templates: pathlib.Path, verbose: bool = False) -> dict:
    """{family: Counter(cases, passed, missed, refused)} over tests/families."""
    scores = {}
    for path in sorted((SOURCE / "tests" / "families").glob("*.jsonl")):
        family = path.stem
        counts = collections.Counter()
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            counts["cases"] += 1
            if not case.get("template") or family not in responses:
                counts["refused"] += 1
                continue
            chat = ocml.ChatTemplate.from_file(templates / case["template"])
            fmt = chat.format(ocml.ResponseTemplate.from_file(responses[family]))
            ok, why = check(case, fmt, chat)
            counts["passed" if ok else "missed"] += 1
            if not ok and verbose:
                print(f"  miss {case['id']} ({case['kind']}): {why}")
        scores[family] = counts
    return scores


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--templates", default=str(SOURCE.parent / "shared" / "reference" /
                                                "templates" / "models"))
    ap.add_argument("--response", action="append", default=[],
                    help="FAMILY=response template file")
    args = ap.parse_args()
    responses = dict(item.split("=", 1) for item in args.response)
    templates = pathlib.Path(args.templates)
    if not templates.is_dir():
        print(f"skipped: {templates} is absent")
        return 0
    total = collections.Counter()
    for family, counts in score(responses, templates, args.verbose).items():
        total.update(counts)
        print(f"{family:12} {counts['passed']:3} of {counts['cases']:3} "
              f"(missed {counts['missed']}, no response template {counts['refused']})")
    print(f"{'all':12} {total['passed']:3} of {total['cases']:3} "
          f"(missed {total['missed']}, no response template {total['refused']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
