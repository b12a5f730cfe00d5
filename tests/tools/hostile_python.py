#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Hostile inputs to the Python package's template and batch entry points (docs/ROBUSTNESS.md):
run under `ulimit -v 2000000`; every line must end in an ocml error or a bounded result."""
import ocml, resource, sys
def t(name, fn):
    try:
        r = fn(); print(name, "-> ok", type(r).__name__, str(r)[:60])
    except Exception as e:
        print(name, "->", type(e).__name__, str(e)[:100])
deep = "[" * 10**6 + "]" * 10**6
t("ChatTemplate /dev/zero", lambda: ocml.ChatTemplate.from_file("/dev/zero"))
t("ResponseTemplate /dev/zero", lambda: ocml.ResponseTemplate.from_file("/dev/zero"))
t("ResponseTemplate deep", lambda: ocml.ResponseTemplate('{"fields": ' + deep + '}'))
t("ChatTemplate deep config", lambda: ocml.ChatTemplate('{"chat_template": ' + deep + '}'))
t("ChatTemplate deep jinja", lambda: ocml.ChatTemplate("{{" + "(" * 10**6 + "1" + ")" * 10**6 + "}}"))
ct = ocml.ChatTemplate("{{ x }}")
t("render_variables deep", lambda: ct._t.render_variables('{"x": ' + deep + '}', False, ""))
t("render_variables huge number", lambda: ct.render_variables({"x": 10**5000}))
t("render_variables 1e999999", lambda: ct._t.render_variables('{"x": 1e999999}', False, ""))
rt = ocml.ResponseTemplate.from_file("examples/models/chatml-tools/tokenizer_config.json")
t("parse deep tools", lambda: rt._t.parse("hi", "", deep, False, True, None))
t("parse deep body", lambda: rt.parse("<tool_call>" + "[" * 10**6 + "</tool_call>", lenient=True))
t("parse seed huge", lambda: rt.parse("hi", call_id_seed=10**30))
t("template_format 10**6 distinct stops", lambda: len(ocml.ChatTemplate("{{x}}").format(stop=[str(i) for i in range(10**6)]).stop()))
t("parse_batch 300MB zeros", lambda: ocml.parse_batch([b"\0" * (300 << 20)], format="chatml", lenient=True, errors="return")[0].__class__)
t("ChatTemplate range huge", lambda: ocml.ChatTemplate("{% for i in range(10**12) %}x{% endfor %}").render_variables({}))
