#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes N seeded agent conversations in OpenAI chat JSON, one per line, as a training set
holds them: a system prompt on most, 2-4 declared tools, 1-3 user turns, each answered by
0-3 tool-call steps (1-2 parallel calls each, their replies with tool_call_id) and a final
answer, with `reasoning_content` on about half the assistant steps.

usage: make_agent_corpus.py N [SEED] > corpus.jsonl
"""
import json
import random
import sys

TOOLS = [
    ("get_weather", "Current weather for a city.",
     {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}}),
    ("search_web", "Search the web.", {"query": {"type": "string"}, "top_k": {"type": "integer"}}),
    ("read_file", "Read a file of the workspace.", {"path": {"type": "string"}}),
    ("run_sql", "Run a read-only SQL query.", {"sql": {"type": "string"}}),
    ("send_email", "Send an email.",
     {"to": {"type": "string"}, "subject": {"type": "string"}, "body": {"type": "string"}}),
    ("convert_currency", "Convert an amount.",
     {"amount": {"type": "number"}, "from": {"type": "string"}, "to": {"type": "string"}}),
]
CITIES = ["Paris", "Tōkyō", "São Paulo", "Zürich", "Lagos", "Reykjavík", "القاهرة", "Мінск"]
ASKS = [
    "What's the weather in {c} and should I bring an umbrella?",
    "Find me recent news about {c} and summarise it in two lines.",
    "Can you check the config file and tell me the port?",
    "How many orders did we get last week?",
    "Email Bob that the report is late, please.",
    "Convert 250 EUR to JPY.",
    "Thanks! And what about tomorrow?",
    "Explain the result like I'm five.",
]
THOUGHTS = [
    "The user wants {x}. I should call the tool first, then answer briefly.",
    "I have the tool result. Let me check it against the question:\n- it answers {x}\n- nothing missing",
    "Two lookups are independent, so I can run them in parallel.",
    "No tool is needed here; a direct answer is enough.",
]
ANSWERS = [
    "It's 18 °C and cloudy in {c}; a light jacket is enough, no umbrella needed.",
    "Here is the short version:\n\n1. Prices went up.\n2. The vote is on Friday.",
    "The server listens on port `8080` (see `config.yaml`, line 12).",
    "You received **1 284** orders last week, 9% more than the week before.",
    "Done: Bob has been told the report will be late.",
    "250 EUR is about 40 512 JPY at today's rate.",
]


def args_for(rng, name, params):
    out = {}
    for key, spec in params.items():
        if spec.get("enum"):
            out[key] = rng.choice(spec["enum"])
        elif spec["type"] == "integer":
            out[key] = rng.randint(1, 10)
        elif spec["type"] == "number":
            out[key] = rng.choice([250, 12.5, 0.75])
        elif key == "city":
            out[key] = rng.choice(CITIES)
        elif key == "sql":
            out[key] = "SELECT count(*) FROM orders WHERE day >= date('now', '-7 day')"
        else:
            out[key] = rng.choice(["config.yaml", "news " + rng.choice(CITIES), "bob@example.com",
                                   "Report", "It will be late, sorry.\nBest,\nA"])
    return out


def conversation(rng, n):
    declared = rng.sample(TOOLS, rng.randint(2, 4))
    tools = [{"type": "function", "function": {
        "name": name, "description": desc,
        "parameters": {"type": "object", "properties": params, "required": list(params)[:1]}}}
        for name, desc, params in declared]
    msgs = []
    if rng.random() < 0.8:
        msgs.append({"role": "system", "content": "You are a careful assistant. Use tools when they help."})
    call = 0
    for _ in range(rng.randint(1, 3)):
        c = rng.choice(CITIES)
        msgs.append({"role": "user", "content": rng.choice(ASKS).format(c=c)})
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            step = {"role": "assistant", "content": ""}
            if rng.random() < 0.5:
                step["reasoning_content"] = rng.choice(THOUGHTS).format(x="the " + c + " lookup")
            if rng.random() < 0.25:
                step["content"] = "Let me check that."
            calls = []
            for _ in range(rng.choice([1, 1, 2])):
                name, _, params = rng.choice(declared)
                call += 1
                calls.append({"id": f"call_{n}_{call}", "type": "function", "function": {
                    "name": name, "arguments": json.dumps(args_for(rng, name, params),
                                                          ensure_ascii=False)}})
            step["tool_calls"] = calls
            msgs.append(step)
            for tc in calls:
                msgs.append({"role": "tool", "tool_call_id": tc["id"],
                             "content": json.dumps({"ok": True, "result": rng.choice(ANSWERS).format(c=c)},
                                                   ensure_ascii=False)})
        final = {"role": "assistant", "content": rng.choice(ANSWERS).format(c=c)}
        if rng.random() < 0.5:
            final["reasoning_content"] = rng.choice(THOUGHTS).format(x="an answer about " + c)
        msgs.append(final)
    return {"messages": msgs, "tools": tools}


def main():
    n = int(sys.argv[1])
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 27)
    for i in range(n):
        sys.stdout.write(json.dumps(conversation(rng, i), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
