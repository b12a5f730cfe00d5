#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The family scoreboard of issue 26: every case of tests/families/*.jsonl parsed by ocml the
way a user with only the model's chat template would parse it (`ocml.ChatTemplate` of the
case's real template, and the response template ocml finds for it), compared as
docs/decisions.md 89 says. Prints one line per family and the total; with --verbose, each
miss.

usage: check_families.py [--verbose] [--no-stream] [--templates DIR] [--response FAMILY=FILE ...]

Without --response a case is parsed with what `-d model:PATH` takes for a folder holding only
the case's chat template: the curated response template its fingerprint matches (a case whose
template matches none counts as refused). --response gives a family a response template file
instead. Each case is also streamed in pieces of every size 1..16 bytes (OpenAI chunks,
folded as a client folds them) and must give its one-shot message, argument bytes included. Needs the ocml package (PYTHONPATH=build/python)
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
    # The tail may repeat what the generation prompt already ends with ("<think>\n" of
    # "<think>\n</think>\n\n"): only the rest is appended.
    for k in range(min(len(tail), len(prompt)), -1, -1):
        if prompt.endswith(tail[:k]):
            return prompt + tail[k:]
    return prompt + tail


def out_of(case: dict, fmt, chat) -> dict:
    """The one-shot parse's assistant message (raises ocml.Error)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = ocml.parse(case["output"], format=fmt, completion=True,
                         prefix=prefix_of(chat, case), tools=case.get("tools"),
                         lenient=case["kind"] != "complete", call_id_seed=1)
    messages = [m for m in out.get("messages", []) if m.get("role") == "assistant"]
    return messages[-1] if messages else {}


def check(case: dict, fmt, chat) -> tuple[bool, str]:
    try:
        got = norm_message(out_of(case, fmt, chat))
    except ocml.Error as e:
        return False, f"{e.code}: {e.message[:120]}"
    want = norm_message(case["expected"])
    if got == want:
        return True, ""
    return False, f"got {json.dumps(got, ensure_ascii=False)[:300]}"


def fold(chunks: list) -> dict:
    """OpenAI chat.completion.chunk objects folded into one message, as a client does
    (argument deltas concatenated per call index)."""
    content, reasoning, calls = "", "", {}
    for chunk in chunks:
        for choice in chunk.get("choices", []):
            delta = choice.get("delta", {})
            content += delta.get("content") or ""
            reasoning += delta.get("reasoning_content") or ""
            for tc in delta.get("tool_calls") or []:
                call = calls.setdefault(tc["index"], {"name": "", "arguments": ""})
                fn = tc.get("function", {})
                call["name"] += fn.get("name") or ""
                call["arguments"] += fn.get("arguments") or ""
    return {"content": content or None, "reasoning_content": reasoning or None,
            "tool_calls": [{"function": calls[i]} for i in sorted(calls)]}


def check_stream(case: dict, fmt, chat, one_shot: dict) -> tuple[bool, str]:
    """The output streamed in pieces of every size 1..16 bytes folds to the one-shot parse."""
    data = case["output"].encode("utf-8")
    raw_want = [c.get("function", c).get("arguments") for c in one_shot.get("tool_calls") or []]
    want = norm_message(one_shot)
    for size in range(1, 17):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                d = ocml.Decoder(fmt, events="openai", completion=True,
                                 prefix=prefix_of(chat, case), tools=case.get("tools"),
                                 lenient=case["kind"] != "complete", call_id_seed=1)
                chunks = []
                for i in range(0, len(data), size):
                    chunks += d.push(data[i:i + size])
                chunks += d.finish()
        except ocml.Error as e:
            return False, f"streamed in {size}-byte pieces: {e.code}: {e.message[:120]}"
        folded = fold(chunks)
        got = norm_message(folded)
        # The argument deltas concatenate to exactly the one-shot arguments, byte for byte.
        raw_got = [c["function"]["arguments"] for c in folded["tool_calls"]]
        if got != want or raw_got != raw_want:
            return False, (f"streamed in {size}-byte pieces "
                           f"{json.dumps(got, ensure_ascii=False)[:300]}")
    return True, ""


# Cases written from a peer's test for a checkpoint whose chat template is not in ../shared:
# the curated template its model version's folder gets stands in for the folder.
STAND_INS = {"phi4mini": "phi4mini", "deepseek_v3": "deepseek_v3", "deepseek_r1": "deepseek_r1",
             "kimi_k2": "kimi_k2", "granite": "granite3"}


def stand_in(case: dict) -> str | None:
    if case["family"] == "mistral":  # v11+ writes the name after [TOOL_CALLS]
        out = case["output"]
        at = out.find("[TOOL_CALLS]")
        v11 = at >= 0 and not out[at + 12:].lstrip().startswith("[")
        return "mistral_v11" if v11 else "mistral"
    return STAND_INS.get(case["family"])


def run_case(case: dict, fmt, chat, stream: bool, counts=None) -> tuple[bool, str]:
    """One-shot, then streamed byte by byte: a case passes when the one-shot gives what the
    peers expect and the stream folds to it. A case the one-shot misses is streamed too, and
    counted in `stream_differs` when its stream does not fold to its own one-shot parse."""
    ok, why = check(case, fmt, chat)
    if not stream:
        return ok, why
    try:
        one_shot = out_of(case, fmt, chat)
    except ocml.Error:
        return ok, why
    same, how = check_stream(case, fmt, chat, one_shot)
    if not same and counts is not None:
        counts["stream_differs"] += 1
    return (ok and same), (why if not ok else how)


def score(responses: dict, templates: pathlib.Path, verbose: bool = False,
          stream: bool = True) -> dict:
    """{family: Counter(cases, passed, missed, refused)} over tests/families."""
    scores = {}
    for path in sorted((SOURCE / "tests" / "families").glob("*.jsonl")):
        family = path.stem
        counts = collections.Counter()
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            counts["cases"] += 1
            if not case.get("template"):
                name = stand_in(case)
                if name is None or family in responses:
                    counts["refused"] += 1
                    continue
                chat = ocml.ChatTemplate("{{ '' }}")  # no prompt: the case's tail is the prefix
                fmt = chat.format(ocml.ResponseTemplate.from_file(
                    SOURCE / "data" / "response_templates" / f"{name}.json"))
                ok, why = run_case(case, fmt, chat, stream, counts)
                counts["stand_in_passed" if ok else "stand_in_missed"] += 1
                if not ok and verbose:
                    print(f"  miss {case['id']} ({case['kind']}, stand-in {name}): {why}")
                continue
            chat = ocml.ChatTemplate.from_file(templates / case["template"])
            if family in responses:
                fmt = chat.format(ocml.ResponseTemplate.from_file(responses[family]))
            else:
                fmt = chat.format()  # what model:PATH takes: the curated template, if any
                if fmt.response_source["kind"] == "none":
                    counts["refused"] += 1
                    continue
            ok, why = run_case(case, fmt, chat, stream, counts)
            counts["passed" if ok else "missed"] += 1
            if not ok and verbose:
                print(f"  miss {case['id']} ({case['kind']}): {why}")
        scores[family] = counts
    return scores


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--no-stream", action="store_true",
                    help="one-shot only (by default each case is also streamed in pieces of "
                         "1..16 bytes and must fold to its one-shot message)")
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
    for family, counts in score(responses, templates, args.verbose, not args.no_stream).items():
        total.update(counts)
        print(f"{family:12} {counts['passed']:3} of {counts['cases']:3} "
              f"(missed {counts['missed']}, no response template {counts['refused']}"
              + (f"; without a reference chat template, {counts['stand_in_passed']} of "
                 f"{counts['stand_in_passed'] + counts['stand_in_missed']} with the "
                 f"curated stand-in" if counts['stand_in_passed'] + counts['stand_in_missed']
                 else "") + ")")
    print(f"{'all':12} {total['passed']:3} of {total['cases']:3} "
          f"(missed {total['missed']}, no response template {total['refused']}; "
          f"without a reference chat template, {total['stand_in_passed']} of "
          f"{total['stand_in_passed'] + total['stand_in_missed']} with the curated stand-in)")
    if not args.no_stream:
        print(f"streamed in pieces of 1..16 bytes, {total['stream_differs']} case(s) of all "
              "fold to something else than their own one-shot parse")
    return 0


if __name__ == "__main__":
    sys.exit(main())
