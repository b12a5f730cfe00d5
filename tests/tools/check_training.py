#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks ocml's training examples against an independent reference: the model's chat
template rendered by Python's Jinja2 as transformers renders it (tests/tools/render_template.py).

For each conversation and each trained turn (a run of assistant messages; with --turns last
only those after the last user message) the reference renders the inference-time prompt P
(the conversation cut before the turn, add_generation_prompt=True) and the conversation cut
after it, X; the turn as the model sampled it is X after P through its last stop string.
ocml's examples (ocml.render_ids(..., training=True, turns=...)) must then train every turn
exactly once: each labelled run of IDs decodes to that turn's sampled text, the IDs before it
are exactly the tokenizer's IDs of P (the prompt is a prefix of the example, in IDs), and
nothing else is trained. Templates that raise on a conversation (raise_exception) are
counted apart: they are the template's refusals, not training's.

usage: PYTHONPATH=build/python check_training.py --format F --template T.jinja
         --tokenizer tokenizer.json CORPUS.jsonl [--turns automatic] [--kwargs JSON]
         [--stop S ...] [--limit N] [--any-tokenizer]
Prints a JSON summary; exits 1 on any mismatch.
"""
import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render_template  # noqa: E402

import ocml  # noqa: E402


def runs_of(labels):
    runs, start = [], None
    for k, v in enumerate(list(labels) + [-100]):
        if v != -100 and start is None:
            start = k
        elif v == -100 and start is not None:
            runs.append((start, k))
            start = None
    return runs


def reference_turns(template, conv, kwargs, stops, last_only):
    msgs = conv["messages"]
    render_template.parse_tool_call_arguments(msgs)
    first = 0
    if last_only:
        for i, m in enumerate(msgs):
            if m["role"] == "user":
                first = i + 1
    variables = dict(kwargs)
    variables.update(conv.get("chat_template_kwargs", {}))

    def render(n, agp):
        return template.render(messages=msgs[:n], tools=conv.get("tools"), documents=None,
                               add_generation_prompt=agp, **variables)

    turns, s = [], first
    while s < len(msgs):
        if msgs[s]["role"] != "assistant":
            s += 1
            continue
        e = s
        while e + 1 < len(msgs) and msgs[e + 1]["role"] == "assistant":
            e += 1
        p, x = render(s, True), render(e + 1, False)
        if not x.startswith(p):
            # The template rewrote the history once the turn followed it (gpt-oss drops the
            # analysis of earlier tool calls before a final answer): the turn is what ends
            # X; checked as such below.
            turns.append((s, p, None, x))
        else:
            rest = x[len(p):]
            end = max((rest.rfind(t) + len(t) for t in stops if rest.rfind(t) >= 0), default=-1)
            turns.append((s, p, rest[:end] if end >= 0 else rest.rstrip("\n"), x))
        s = e + 1
    return turns


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--format", required=True)
    ap.add_argument("--template", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--turns", default="automatic")
    ap.add_argument("--kwargs", default="{}")
    ap.add_argument("--stop", action="append", default=None)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--any-tokenizer", action="store_true",
                    help="the tokenizer is not the model's: count prompt IDs that differ "
                         "from the prompt encoded whole, do not fail on them")
    ap.add_argument("corpus")
    a = ap.parse_args()
    env = render_template.make_environment()
    with open(a.template, encoding="utf-8") as f:
        template = env.from_string(f.read())
    kwargs = json.loads(a.kwargs)
    tok = ocml.Tokenizer.from_file(a.tokenizer)
    fmt = ocml.Format(a.format)
    stops = a.stop or fmt.stop()
    counts = collections.Counter()
    refusals = collections.Counter()
    bad = []
    with open(a.corpus, encoding="utf-8") as f:
        lines = f.readlines()
    if a.limit:
        lines = lines[:a.limit]
    for n, line in enumerate(lines, 1):
        conv = json.loads(line)
        try:
            ref = reference_turns(template, json.loads(line), kwargs, stops, a.turns == "last")
        except Exception as e:  # the template's own refusal (raise_exception, …)
            counts["template_raised"] += 1
            refusals["template: " + str(e)[:60]] += 1
            continue
        try:
            out = ocml.render_ids(conv, tok, format=fmt, training=True, turns=a.turns,
                                  policy="hf", chat_template_kwargs=kwargs or None,
                                  now=os.environ.get("OCML_TEMPLATE_NOW"))
        except ocml.Error as e:
            counts["refused"] += 1
            refusals[str(e).split(":")[0][:80] + " " + str(e)[-90:]] += 1
            continue
        counts["conversations"] += 1
        counts["examples"] += len(out["examples"])
        pending = list(ref)
        counts["trained_turns"] += len(ref)
        for x in out["examples"]:
            ids, labels = list(x["input_ids"]), list(x["labels"])
            for a0, b0 in runs_of(labels):
                prompt = tok.decode(ids[:a0])
                trained = tok.decode(ids[a0:b0])
                hit = next((t for t in pending if t[1] == prompt and (
                    t[2] == trained if t[2] is not None else
                    t[3].rstrip("\n").endswith(trained))), None)
                if hit is not None and hit[2] is None:
                    counts["turns_read_from_end"] += 1
                if hit is None:
                    same = [t for t in pending if t[2] == trained]
                    where = {}
                    if same:  # the turn is right, its prompt is not: where they part
                        want = same[0][1]
                        k = next((i for i, (u, v) in enumerate(zip(prompt, want)) if u != v),
                                 min(len(prompt), len(want)))
                        where = {"at": k, "got": prompt[max(0, k - 40):k + 60], "want": want[max(0, k - 40):k + 60]}
                    bad.append({"line": n, "prompt_tail": prompt[-80:], "trained": trained[:200],
                                "prompt_differs": where,
                                "expected": [(t[2] or "")[:200] for t in pending][:3]})
                    continue
                if list(tok.encode(hit[1])) != ids[:a0]:
                    # Exact when the tokenizer is the model's (its special tokens end each
                    # piece); another family's tokenizer may merge across the cuts.
                    counts["prompt_ids_differ"] += 1
                    if not a.any_tokenizer:
                        bad.append({"line": n, "turn": hit[0], "why": "prompt IDs differ"})
                pending.remove(hit)
                counts["turns_checked"] += 1
        for t in pending:
            bad.append({"line": n, "turn": t[0], "why": "not trained"})
        counts["tokens"] += sum(len(x["input_ids"]) for x in out["examples"])
        counts["trained_tokens"] += sum(sum(1 for v in x["labels"] if v != -100)
                                        for x in out["examples"])
    print(json.dumps({"format": a.format, "turns": a.turns, **counts,
                      "mismatches": len(bad), "refusals": dict(refusals.most_common(8)),
                      "first_mismatches": bad[:3]}, ensure_ascii=False, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
