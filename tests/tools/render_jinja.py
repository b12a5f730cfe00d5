#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Renders OpenAI conversations (one JSON object per line) with a chat template the way
Hugging Face transformers does: ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks,
tojson = json.dumps(ensure_ascii=False), tool-call arguments given as JSON strings parsed
into objects first, a conversation's `chat_template_kwargs` passed as template variables. Writes one JSON string (the rendered text) per line.

usage: render_jinja.py TEMPLATE IN.jsonl OUT.jsonl
"""
import json
import sys

from jinja2.sandbox import ImmutableSandboxedEnvironment


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)


def main():
    template_path, in_path, out_path = sys.argv[1:4]
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = tojson
    with open(template_path, encoding="utf-8") as f:
        template = env.from_string(f.read())
    with open(in_path, encoding="utf-8") as fin, open(out_path, "w", encoding="utf-8") as fout:
        for line in fin:
            conv = json.loads(line)
            messages = conv["messages"]
            for m in messages:
                for tc in m.get("tool_calls") or []:
                    fn = tc.get("function", tc)
                    if isinstance(fn.get("arguments"), str):
                        fn["arguments"] = json.loads(fn["arguments"])
            text = template.render(messages=messages, tools=conv.get("tools"),
                                   add_generation_prompt=conv.get("add_generation_prompt", False),
                                   **conv.get("chat_template_kwargs", {}))
            fout.write(json.dumps(text, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
