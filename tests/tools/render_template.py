#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reference renderer for the differential test of ocml's Jinja2 chat-template engine.

Renders OpenAI-style conversations (one JSON object per line) with a chat template the way
Hugging Face transformers' apply_chat_template does:

  * jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True) with the
    extensions jinja2.ext.loopcontrols and a `{% generation %}...{% endgeneration %}` block that
    outputs its body unchanged (what transformers' AssistantTracker does when it is not tracking);
  * filter `tojson` = json.dumps(x, ensure_ascii=False, indent=..., separators=..., sort_keys=...);
  * global `raise_exception(message)` raising jinja2.exceptions.TemplateError(message);
  * global `strftime_now(format)` formatting the fixed time in the environment variable
    OCML_TEMPLATE_NOW (ISO 8601, e.g. 2026-01-15T10:30:00) when set, else datetime.now().

Variables passed to the template: messages, tools (None when the line has none), documents (None
when the line has none, as transformers passes it), add_generation_prompt (default False), then the
--template-kwargs object, then the line's own `chat_template_kwargs` object (the line wins).
`continue_final_message` (the line's own key) is not a template variable: as transformers does it,
the rendered text is cut after the last occurrence of the final message's content (its last text
part when the content is a list), with ValueError when add_generation_prompt is also set or the
content is not found. Tool-call arguments given as JSON strings are parsed into objects first.

Writes one JSON object per input line: {"text": RENDERED}, or
{"error": {"code": CODE, "message": MESSAGE}} with CODE one of
  E-TEMPLATE-RAISED     the template called raise_exception (message: the template's own message)
  E-TEMPLATE-UNDEFINED  jinja2.exceptions.UndefinedError
  E-TEMPLATE-SECURITY   jinja2.exceptions.SecurityError
  E-TEMPLATE-SYNTAX     jinja2.exceptions.TemplateSyntaxError (compile time: every line gets it)
  E-TEMPLATE-TYPE       anything else (TypeError, ValueError, KeyError, IndexError, ...)
A bad line (even a blank one or one that is not valid JSON) never stops the run: it gets an
error object, so output line i always answers input line i.

usage: render_template.py TEMPLATE IN.jsonl OUT.jsonl [--template-kwargs JSON]
"""
import argparse
import json
import os
import sys
from datetime import datetime

import jinja2
import jinja2.ext
from jinja2 import nodes
from jinja2.exceptions import (SecurityError, TemplateError, TemplateSyntaxError,
                               UndefinedError)
from jinja2.ext import Extension
from jinja2.sandbox import ImmutableSandboxedEnvironment


class GenerationBlock(Extension):
    """`{% generation %}body{% endgeneration %}`: renders body unchanged; while
    render_with_generation_spans runs, records each block's character span as transformers'
    AssistantTracker does (the length of what was rendered before it, plus its own)."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return nodes.CallBlock(self.call_method("_generation_support"), [], [], body).set_lineno(lineno)

    def _generation_support(self, caller):
        rv = caller()
        blocks = getattr(self, "blocks", None)
        if blocks is not None:
            start = len("".join(blocks))
            self.spans.append((start, start + len(rv)))
        return rv


def render_with_generation_spans(template, **variables):
    """The rendered text and the [start, end) character spans of its {% generation %} blocks,
    rendered chunk by chunk as transformers' _render_with_assistant_indices does."""
    ext = next(e for e in template.environment.extensions.values()
               if isinstance(e, GenerationBlock))
    ext.blocks, ext.spans = [], []
    try:
        for chunk in template.generate(**variables):
            ext.blocks.append(chunk)
        return "".join(ext.blocks), ext.spans
    finally:
        ext.blocks = ext.spans = None


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)


def raise_exception(message):
    raise TemplateError(message)


def _now():
    fixed = os.environ.get("OCML_TEMPLATE_NOW")
    if fixed:
        return datetime.fromisoformat(fixed)
    return datetime.now()


def strftime_now(format):
    return _now().strftime(format)


def make_environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationBlock, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def error_of(e):
    """(code, message) for an exception raised while compiling or rendering."""
    if isinstance(e, TemplateSyntaxError):
        return "E-TEMPLATE-SYNTAX", str(e)
    if isinstance(e, UndefinedError):
        return "E-TEMPLATE-UNDEFINED", str(e)
    if isinstance(e, SecurityError):
        return "E-TEMPLATE-SECURITY", str(e)
    if type(e) is TemplateError:  # raise_exception(); subclasses (TemplateRuntimeError...) are not
        return "E-TEMPLATE-RAISED", "" if e.message is None else str(e.message)
    return "E-TEMPLATE-TYPE", str(e)


def parse_tool_call_arguments(messages):
    if not isinstance(messages, list):
        return
    for m in messages:
        if not isinstance(m, dict):
            continue
        for tc in m.get("tool_calls") or []:
            if not isinstance(tc, dict):
                continue
            fn = tc.get("function", tc)
            if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                try:
                    fn["arguments"] = json.loads(fn["arguments"])
                except ValueError:
                    pass  # not JSON: left as the string it is


def render_line(template, line, template_kwargs):
    conv = json.loads(line)
    messages = conv.get("messages", [])
    parse_tool_call_arguments(messages)
    variables = {
        "messages": messages,
        "tools": conv.get("tools"),
        "documents": conv.get("documents"),
        "add_generation_prompt": conv.get("add_generation_prompt", False),
    }
    variables.update(template_kwargs)
    variables.update(conv.get("chat_template_kwargs") or {})
    continue_final = conv.get("continue_final_message", False)
    if continue_final and variables["add_generation_prompt"]:
        raise ValueError("continue_final_message and add_generation_prompt are not compatible.")
    rendered = template.render(**variables)
    if continue_final:
        rendered = continue_final_message(rendered, messages[-1]["content"])
    return rendered


def continue_final_message(rendered, final_message):
    """transformers' continue_final_message cut (render_jinja_template)."""
    if isinstance(final_message, (list, tuple)):
        for block in reversed(final_message):
            if "text" in block:
                final_message = block["text"]
                break
        else:
            raise ValueError("continue_final_message is set but we could not find any text to "
                             "continue in the final message!")
    if final_message.strip() not in rendered:
        raise ValueError("continue_final_message is set but the final message does not appear in "
                         "the chat after applying the chat template!")
    loc = rendered.rindex(final_message.strip())
    if rendered[loc:loc + len(final_message.lstrip())] == final_message:
        return rendered[:loc + len(final_message.lstrip())]
    return rendered[:loc + len(final_message.strip())]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("template")
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--template-kwargs", default="{}",
                    help="JSON object of extra template variables (e.g. bos_token, eos_token)")
    args = ap.parse_args(argv)
    template_kwargs = json.loads(args.template_kwargs)
    if not isinstance(template_kwargs, dict):
        ap.error("--template-kwargs must be a JSON object")

    env = make_environment()
    with open(args.template, encoding="utf-8") as f:
        source = f.read()
    template, compile_error = None, None
    try:
        template = env.from_string(source)
    except Exception as e:  # noqa: BLE001 - every failure becomes a line
        compile_error = error_of(e)

    with open(args.input, encoding="utf-8") as fin, \
            open(args.output, "w", encoding="utf-8", newline="\n") as fout:
        for line in fin:  # one output line per input line, blank or not, to keep them aligned
            if compile_error is not None:
                code, message = compile_error
                out = {"error": {"code": code, "message": message}}
            else:
                try:
                    out = {"text": render_line(template, line, template_kwargs)}
                except Exception as e:  # noqa: BLE001 - never stop on one bad line
                    code, message = error_of(e)
                    out = {"error": {"code": code, "message": message}}
            fout.write(json.dumps(out, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
