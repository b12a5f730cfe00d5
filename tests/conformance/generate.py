#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the conformance suite: tests/conformance/<dialect>/{y,n,i}_<name>.txt with the
expected outcome beside each case (<case>.json).

  y_  must parse in strict mode with no diagnostics; the .json holds the native JSON.
  n_  must be rejected in strict mode; the .json holds the first error's code (chosen here,
      by design of the case) and byte offset.
  i_  may go either way but must never crash; the .json records both outcomes and what
      lenient mode recovers.

The case texts and the n_ codes are written by hand below. Expected native JSON, offsets
and i_ outcomes are recorded from `ocml parse` when this script is run, and every n_ case
is checked against the code the case was written to trigger (the script fails otherwise).

usage: generate.py OCML_BINARY
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
MISMATCHES = []
OCML = sys.argv[1]


def run(dialect, text, lenient=False):
    args = [OCML, "parse", "-d", dialect, "-"]
    if lenient:
        args.insert(4, "--lenient")
    p = subprocess.run(args, input=text, capture_output=True)
    diags = []
    for line in p.stderr.decode("utf-8", "replace").splitlines():
        parts = line.split(" ", 2)
        if len(parts) >= 2 and parts[0].startswith("E-"):
            diags.append({"code": parts[0], "where": parts[1],
                          "warning": len(parts) > 2 and parts[2].startswith("warning:")})
    return p.returncode, json.loads(p.stdout) if p.stdout else None, diags


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def offsets(dialect, text):
    out = []
    p = subprocess.run([OCML, "stream", "-d", dialect, "-"], input=text, capture_output=True)
    for line in p.stdout.decode().splitlines():
        e = json.loads(line)
        if e["event"] == "diagnostic":
            out.append(e)
    return out


def write(dialect, kind, name, text, expect_code=None):
    if isinstance(text, str):
        text = text.encode("utf-8")
    d = os.path.join(ROOT, dialect)
    os.makedirs(d, exist_ok=True)
    base = os.path.join(d, f"{kind}_{name}")
    with open(base + ".txt", "wb") as f:
        f.write(text)
    rc, native, diags = run(dialect, text)
    if kind == "y":
        if rc != 0 or diags:
            MISMATCHES.append((dialect, name, diags, "y"))
        compact = json.dumps(native, ensure_ascii=False, separators=(",", ":"))
        if len(compact) > 65536:  # big cases: a digest of the compact native JSON
            expected = {"native_fnv1a64": fnv1a64(compact.encode("utf-8")), "messages": len(native["messages"])}
        else:
            expected = {"native": native}
    elif kind == "n":
        events = [e for e in offsets(dialect, text) if e["severity"] == "error"]
        if rc != 1 or not events:
            MISMATCHES.append((dialect, name, "accepted", expect_code))
            return
        first = events[0]
        if first["code"] != expect_code:
            MISMATCHES.append((dialect, name, first["code"], expect_code))
        expected = {"code": first["code"], "offset": first["offset"], "line": first["line"],
                    "column": first["column"]}
    else:
        lrc, lnative, ldiags = run(dialect, text, lenient=True)
        expected = {"strict": "accept" if rc == 0 else "reject",
                    "lenient": "accept" if lrc == 0 else "reject",
                    "lenient_native": lnative,
                    "lenient_codes": [x["code"] for x in ldiags]}
    with open(base + ".json", "w", encoding="utf-8") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")


CONTENTS = ["Hello", "日本語のテキスト", "a < b && c > d", "<div class=\"x\">html</div>",
            "emoji 😀 and ü", "line one\nline two\n", "if (x<y) { return a||b; }", "  spaced  ",
            "tab\tseparated", "quote \" and backslash \\"]

# ---------------------------------------------------------------------------------------
# OpenChatML 2.2 and harmony share the 2.x decoder.


def openchatml_cases(d):
    hdr = "---\nversion: 2.2\n---\n" if d == "ocml-2.2" else ""
    y, n, i = {}, {}, {}
    for k, c in enumerate(CONTENTS):
        y[f"user_{k}"] = f"<|start|>user<|message|>{c}<|end|>"
        y[f"final_{k}"] = f"<|start|>assistant<|channel|>final<|message|>{c}<|return|>"
        y[f"analysis_{k}"] = f"<|start|>assistant<|channel|>analysis<|message|>{c}<|end|>"
        if d == "harmony":  # no escape: a '<' before a control token is text (decisions 60)
            y[f"lt_before_stop_{k}"] = f"<|start|>user<|message|>{c}<<|end|>"
        else:
            y[f"escaped_{k}"] = f"<|start|>user<|message|>{c}<<|end|>{c}<|end|>"
    if d == "harmony":
        y["literal_is_text"] = "<|start|>user<|message|>x<|literal|>y<|endliteral|><<|end|>"
    else:
        y["literal_block"] = "<|start|>user<|message|>x<|literal|><|start|><|end|><|call|><|endliteral|>y<|end|>"
    y.update({
        "legacy_no_channels": "<|start|>system<|message|>s<|end|><|start|>user<|message|>u<|end|><|start|>assistant<|message|>a<|end|>",
        "call_constrained": "<|start|>assistant to=functions.f<|channel|>commentary<|constrain|>json<|message|>{\"a\":[1,2,{\"b\":null}]}<|call|>",
        "call_to_after_channel": "<|start|>assistant<|channel|>commentary to=functions.f<|constrain|>json<|message|>{}<|call|>",
        "legacy_tool_author": "<|start|>functions.lookup to=assistant<|channel|>commentary<|message|>{\"ok\":true}<|end|>",
        "empty_body": "<|start|>user<|message|><|end|>",
        "crlf_between": "<|start|>user<|message|>a<|end|>\r\n\r\n<|start|>user<|message|>b<|end|>\r\n",
        "nul_byte": "<|start|>user<|message|>a\x00b<|end|>",
        "one_megabyte": "<|start|>assistant<|channel|>final<|message|>" + ("x<y " * 262144) + "<|return|>",
        "ten_thousand_messages": "".join(f"<|start|>user<|message|>{j}<|end|>" for j in range(10000)),
        "deep_json_500": "<|start|>assistant to=functions.f<|channel|>commentary<|constrain|>json<|message|>" + "[" * 500 + "]" * 500 + "<|call|>",
        # (2.x: "<<|" escapes; harmony: every '<' is text, so the first <|end|> ends it)
        "lone_lt": "<|start|>user<|message|><<|<<<|end|>" + ("" if d == "harmony" else "<|end|>"),
        "pipe_not_token": "<|start|>user<|message|><|foo|> <|START|> <|end |><|end|>",
        "to_all": "<|start|>assistant to=all<|channel|>final<|message|>x<|end|>",
    })
    if d == "ocml-2.2":
        y.update({
            "yaml_fenced": hdr + "<|start|>user<|message|>x<|end|>",
            "yaml_unfenced": "version: 2.2\nmodel: m\n<|start|>user<|message|>x<|end|>",
            "yaml_unknown_keys": "---\nversion: 2.2\nfuture:\n  a: [1, 2]\n---\n<|start|>user<|message|>x<|end|>",
            "tool_canonical": "<|start|>tool name=functions.f call_id=c1 to=assistant<|channel|>commentary<|message|>{}<|end|>",
            "preamble": "<|start|>assistant intent=preamble<|channel|>commentary<|message|>Plan<|end|>",
            "attrs_any_order": "<|start|>assistant call_id=9 to=functions.f name=bot<|channel|>commentary<|message|>{}<|call|>",
            "extra_attr": "<|start|>user x-trace=abc<|message|>x<|end|>",
            "content_type_attr": "<|start|>assistant content_type=markdown<|channel|>final<|message|>*x*<|return|>",
            "whitespace_before_constrain": "<|start|>assistant to=functions.f<|channel|>commentary <|constrain|>json<|message|>{}<|call|>",
        })
    else:
        y.update({
            "bare_content_type": "<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{}<|call|>",
            "unknown_author": "<|start|>browser.search to=assistant<|channel|>commentary<|message|>{}<|end|>",
            "role_colon_name": "<|start|>user:alice<|message|>hi<|end|>",
            "constrain_harmony_style": "<|start|>assistant to=functions.f<|channel|>commentary <|constrain|>json<|message|>{}<|call|>",
            "code_content_type": "<|start|>assistant<|channel|>analysis to=python code<|message|>print(1)<|call|>",
            "developer_message": "<|start|>developer<|message|># Instructions\n\nBe brief.<|end|>",
            "custom_channel": "<|start|>assistant<|channel|>notes<|message|>x<|end|>",
            "golden_like_tool_response": "<|start|>browser.search to=assistant<|channel|>commentary<|message|>{\"result\": \"x\"}<|end|>",
        })
    E = "E-PARSE-HEADER"
    n.update({
        "unknown_channel": ("<|start|>assistant<|channel|>secret<|message|>x<|end|>", E) if d == "ocml-2.2" else None,
        "empty_channel": ("<|start|>assistant<|channel|><|message|>x<|end|>", E),
        "no_role": ("<|start|><|message|>x<|end|>", E),
        "duplicate_to": ("<|start|>assistant to=functions.f<|channel|>commentary to=functions.f<|message|>{}<|call|>", E),
        "conflicting_to": ("<|start|>assistant to=functions.f<|channel|>commentary to=functions.g<|message|>{}<|call|>", E),
        "doubled_start": ("<|start|>assistant<|start|>assistant<|channel|>final<|message|>x<|return|>", E),
        "refusal_without_message": ("<|start|>assistant I can't help with that.<|end|>", E),
        "two_channels": ("<|start|>assistant<|channel|>final<|channel|>analysis<|message|>x<|end|>", E),
        "two_constrains": ("<|start|>assistant<|channel|>final<|constrain|>json<|constrain|>json<|message|>{}<|end|>", E),
        "constrain_without_type": ("<|start|>assistant<|channel|>final<|constrain|><|message|>{}<|end|>", E),
        "empty_to": ("<|start|>assistant to=<|channel|>commentary<|message|>{}<|call|>", E),
        "stray_return": ("<|start|>user<|message|>x<|end|><|return|>", "E-PARSE-UNEXPECTED-TOKEN"),
        "stray_end_first": ("<|end|><|start|>user<|message|>x<|end|>", "E-PARSE-UNEXPECTED-TOKEN"),
        "channel_in_body": ("<|start|>user<|message|>x<|channel|>y<|end|>", "E-PARSE-UNEXPECTED-TOKEN"),
        "message_in_body": ("<|start|>user<|message|>x<|message|>y<|end|>", "E-PARSE-UNEXPECTED-TOKEN"),
        "start_in_body": ("<|start|>user<|message|>x<|start|>user<|message|>y<|end|>", "E-PARSE-UNEXPECTED-TOKEN"),
        "stray_text_between": ("<|start|>user<|message|>a<|end|>oops<|start|>user<|message|>b<|end|>", "E-PARSE-STRAY-TEXT"),
        "constraint_violation": ("<|start|>assistant to=functions.f<|channel|>commentary<|constrain|>json<|message|>{not json}<|call|>", "E-BODY-CONSTRAINT-VIOLATION"),
        "constraint_trailing_garbage": ("<|start|>assistant to=functions.f<|channel|>commentary<|constrain|>json<|message|>{} x<|call|>", "E-BODY-CONSTRAINT-VIOLATION"),
        "deep_json_5000": ("<|start|>assistant to=functions.f<|channel|>commentary<|constrain|>json<|message|>" + "[" * 5000 + "]" * 5000 + "<|call|>", "E-BODY-CONSTRAINT-VIOLATION"),
        "truncated_mid_json": ("<|start|>assistant to=functions.f<|channel|>commentary<|constrain|>json<|message|>{\"a\":", "E-STREAM-TRUNCATED") if d == "ocml-2.2" else None,
        "invalid_utf8": (b"<|start|>user<|message|>ok\xff\xfe<|end|>", "E-ENCODING-UTF8"),
        "overlong_utf8": (b"<|start|>user<|message|>\xc0\xaf<|end|>", "E-ENCODING-UTF8"),
        "surrogate_utf8": (b"<|start|>user<|message|>\xed\xa0\x80<|end|>", "E-ENCODING-UTF8"),
        "utf8_cut_at_end_of_body": (b"<|start|>user<|message|>\xe2\x82<|end|>", "E-ENCODING-UTF8"),
        "header_too_long": ("<|start|>user " + "a" * 70000 + "<|message|>x<|end|>", "E-LIMIT-EXCEEDED"),
        "truncated_mid_header_token": ("<|start|>user<|mess", "E-STREAM-TRUNCATED"),
        "truncated_after_start": ("<|start|>", "E-STREAM-TRUNCATED"),
        "truncated_in_header": ("<|start|>assistant<|channel|>fin", "E-STREAM-TRUNCATED"),
    })
    if d != "harmony":  # the 2.x escape tokens (harmony has none: there they are text)
        n.update({
            "endliteral_in_body": ("<|start|>user<|message|>x<|endliteral|><|end|>", "E-PARSE-UNEXPECTED-TOKEN"),
            "literal_in_header": ("<|start|>user<|literal|><|message|>x<|end|>", "E-PARSE-UNEXPECTED-TOKEN"),
        })
    if d == "ocml-2.2":
        n.update({
            "unknown_role": ("<|start|>bot<|message|>x<|end|>", E),
            "bare_word_after_channel": ("<|start|>assistant<|channel|>commentary json<|message|>{}<|call|>", E),
            "bare_word_in_start": ("<|start|>assistant functions.f<|channel|>commentary<|message|>{}<|call|>", E),
            "truncated_body": ("<|start|>assistant<|channel|>final<|message|>Hel", "E-STREAM-TRUNCATED"),
            "truncated_mid_stop_token": ("<|start|>assistant<|channel|>final<|message|>Hi<|ret", "E-STREAM-TRUNCATED"),
            "truncated_mid_utf8": (b"<|start|>user<|message|>\xe2\x82", "E-STREAM-TRUNCATED"),
            "truncated_in_literal": ("<|start|>user<|message|><|literal|>abc", "E-STREAM-TRUNCATED"),
            "yaml_bad": ("---\nversion: 2.2\nmodel: [oops\n---\n<|start|>user<|message|>x<|end|>", "E-PARSE-DOCUMENT-HEADER"),
            "yaml_no_version": ("---\nmodel: m\n---\n<|start|>user<|message|>x<|end|>", "E-PARSE-DOCUMENT-HEADER"),
            "yaml_not_mapping": ("just words\n<|start|>user<|message|>x<|end|>", "E-PARSE-DOCUMENT-HEADER"),
            "yaml_fence_unclosed": ("---\nversion: 2.2\n<|start|>user<|message|>x<|end|>", "E-PARSE-DOCUMENT-HEADER"),
            "yaml_too_deep": ("---\nversion: 2.2\nx: " + "[" * 100 + "]" * 100 + "\n---\n<|start|>user<|message|>x<|end|>", "E-LIMIT-EXCEEDED"),
            "final_constrain_json_prose": ("<|start|>assistant<|channel|>final <|constrain|>json<|message|>Sure: 4<|return|>", "E-BODY-CONSTRAINT-VIOLATION"),
            "duplicate_call_id": ("<|start|>assistant call_id=1 call_id=1 to=functions.f<|channel|>commentary<|message|>{}<|call|>", E),
            "duplicate_extra": ("<|start|>user x=1 x=2<|message|>x<|end|>", E),
            "empty_intent": ("<|start|>assistant intent=<|channel|>commentary<|message|>x<|end|>", E),
            "constrain_extra_word": ("<|start|>assistant<|channel|>final<|constrain|>json yaml<|message|>{}<|end|>", E),
            "utf8_in_json_body_cut": (b"<|start|>assistant to=functions.f<|channel|>commentary<|constrain|>json<|message|>\"\xe2\x82\"<|call|>", "E-ENCODING-UTF8"),
        })
        for k, c in enumerate(CONTENTS):
            n[f"stray_text_{k}"] = (f"<|start|>user<|message|>a<|end|>{c.strip() or 'x'}<|start|>user<|message|>b<|end|>", "E-PARSE-STRAY-TEXT")
            n[f"truncated_{k}"] = (f"<|start|>user<|message|>{c}", "E-STREAM-TRUNCATED")
    else:
        n.update({
            "tool_without_name": ("<|start|>tool to=assistant<|channel|>commentary<|message|>{}<|end|>", E),
            "eos_in_header_of_completion_like": ("<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>", "E-STREAM-TRUNCATED"),
            "stray_call": ("<|call|><|start|>user<|message|>x<|end|>", "E-PARSE-UNEXPECTED-TOKEN"),
            "constrain_in_body": ("<|start|>user<|message|>a<|constrain|>json<|end|>", "E-PARSE-UNEXPECTED-TOKEN"),
            "text_before_start": ("hello<|start|>user<|message|>x<|end|>", "E-PARSE-STRAY-TEXT"),
            "yaml_is_stray_text": ("---\nversion: 2.2\n---\n<|start|>user<|message|>x<|end|>", "E-PARSE-STRAY-TEXT"),
            "invalid_utf8_in_final": (b"<|start|>assistant<|channel|>final<|message|>\x80<|return|>", "E-ENCODING-UTF8"),
        })
        for k, c in enumerate(CONTENTS):
            n[f"stray_text_{k}"] = (f"<|start|>user<|message|>a<|end|>{c.strip() or 'x'}<|start|>user<|message|>b<|end|>", "E-PARSE-STRAY-TEXT")
            n[f"constraint_violation_{k}"] = (f"<|start|>assistant to=functions.f<|channel|>commentary <|constrain|>json<|message|>{c}<|call|>", "E-BODY-CONSTRAINT-VIOLATION")
            n[f"doubled_start_{k}"] = (f"<|start|>assistant<|start|>assistant<|channel|>final<|message|>{c}<|end|>", E)
    i.update({
        "empty_input": "",
        "whitespace_only": " \n\t\r\n",
        "utf8_bom": "\ufeff<|start|>user<|message|>x<|end|>",
        "uppercase_tokens": "<|START|>user<|MESSAGE|>x<|END|>",
        "token_with_space": "<|start |>user<|message|>x<|end|>",
        "lone_token_prefix": "<|",
        "only_start": "<|start|>user",
        "refusal_then_message": "<|start|>assistant Sorry.<|end|><|start|>assistant<|channel|>final<|message|>ok<|return|>",
        "doubled_stop": "<|start|>user<|message|>x<|end|><|end|>",
        "content_type_after_channel": "<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{}<|call|>",
        "start_in_literal_unclosed": "<|start|>user<|message|><|literal|><|start|>",
        "repetitive_tokens": "<|start|>" * 500,
        "many_escapes": "<|start|>user<|message|>" + "<<|end|>" * 2000 + "<|end|>",
        "nul_in_header": "<|start|>user\x00<|message|>x<|end|>",
        "crlf_in_header": "<|start|>user\r\n<|message|>x<|end|>",
        "final_constrain_json": "<|start|>assistant<|channel|>final <|constrain|>json<|message|>{\"a\":1}<|return|>",
        "truncated_mid_utf8_stream": b"<|start|>user<|message|>\xf0\x9f",
    })
    return y, n, i


# ---------------------------------------------------------------------------------------


def ocml20_cases():
    y, n, i = {}, {}, {}
    for k, c in enumerate(CONTENTS):
        y[f"user_{k}"] = f"<|start|>user<|message|>{c}<|end|>"
        y[f"final_{k}"] = f"<|start|>assistant<|channel|>final<|message|>{c}<|end|>"
        y[f"call_{k}"] = f"<|start|>assistant to=functions.f<|channel|>commentary<|message|>{json.dumps({'q': c})}<|call|>"
        n[f"stray_{k}"] = (f"<|start|>user<|message|>a<|end|>{c.strip() or 'x'}<|start|>user<|message|>b<|end|>", "E-PARSE-STRAY-TEXT")
        n[f"truncated_{k}"] = (f"<|start|>assistant<|channel|>analysis<|message|>{c}", "E-STREAM-TRUNCATED")
    y["yaml"] = "---\nversion: 2.0\n---\n<|start|>user<|message|>x<|end|>"
    y["functions_author"] = "<|start|>functions.browser.search to=assistant<|channel|>commentary<|message|>{}<|end|>"
    n.update({
        "unknown_role": ("<|start|>bot<|message|>x<|end|>", "E-PARSE-HEADER"),
        "unknown_channel": ("<|start|>assistant<|channel|>x<|message|>x<|end|>", "E-PARSE-HEADER"),
        "stray_return": ("<|start|>user<|message|>x<|end|><|return|>", "E-PARSE-UNEXPECTED-TOKEN"),
        "invalid_utf8": (b"<|start|>user<|message|>\xff<|end|>", "E-ENCODING-UTF8"),
        "yaml_no_version": ("---\nmodel: m\n---\n<|start|>user<|message|>x<|end|>", "E-PARSE-DOCUMENT-HEADER"),
        "doubled_start": ("<|start|>assistant<|start|>assistant<|channel|>final<|message|>x<|end|>", "E-PARSE-HEADER"),
        "channel_in_body": ("<|start|>user<|message|>x<|channel|>y<|end|>", "E-PARSE-UNEXPECTED-TOKEN"),
        "header_too_long": ("<|start|>user " + "a" * 70000 + "<|message|>x<|end|>", "E-LIMIT-EXCEEDED"),
        "empty_channel": ("<|start|>assistant<|channel|><|message|>x<|end|>", "E-PARSE-HEADER"),
        "no_role": ("<|start|><|message|>x<|end|>", "E-PARSE-HEADER"),
    })
    i.update({
        "empty_input": "", "whitespace_only": "\n\n", "lone_prefix": "<|sta", "bom": "\ufeff<|start|>user<|message|>x<|end|>",
        "uppercase": "<|START|>user<|MESSAGE|>x<|END|>", "refusal": "<|start|>assistant no.<|end|>",
        "bare_ctype": "<|start|>assistant<|channel|>commentary json<|message|>{}<|call|>",
        "many_starts": "<|start|>" * 100, "nul": "<|start|>user<|message|>\x00<|end|>", "literal_open": "<|start|>user<|message|><|literal|>",
    })
    return y, n, i


def chatml_cases():
    y, n, i = {}, {}, {}
    sysm = "<|im_start|>system\nYou are Qwen.<|im_end|>\n"
    for k, c in enumerate(CONTENTS):
        y[f"user_{k}"] = f"{sysm}<|im_start|>user\n{c}<|im_end|>\n"
        y[f"assistant_{k}"] = f"{sysm}<|im_start|>assistant\n{c}<|im_end|>\n"
        y[f"call_{k}"] = f"{sysm}<|im_start|>assistant\n{c}\n<tool_call>\n{{\"name\": \"f\", \"arguments\": {json.dumps({'q': c}, ensure_ascii=False)}}}\n</tool_call><|im_end|>\n"
        n[f"stray_{k}"] = (f"{sysm}{c.strip() or 'x'}<|im_start|>user\nb<|im_end|>\n", "E-PARSE-STRAY-TEXT")
        n[f"bad_call_json_{k}"] = (f"{sysm}<|im_start|>assistant\n<tool_call>\n{c}\n</tool_call><|im_end|>\n", "E-BODY-CONSTRAINT-VIOLATION")
        n[f"truncated_{k}"] = (f"{sysm}<|im_start|>assistant\n{c}", "E-STREAM-TRUNCATED")
    y["tool_responses"] = sysm + "<|im_start|>user\n<tool_response>\nA\n</tool_response>\n<tool_response>\nB\n</tool_response><|im_end|>\n"
    y["empty_assistant"] = sysm + "<|im_start|>assistant\n<|im_end|>\n"
    y["user_writes_tool_call_tag"] = sysm + "<|im_start|>user\nsee <tool_call> here<|im_end|>\n"
    n.update({
        "stray_im_end": ("<|im_end|>" + sysm, "E-PARSE-UNEXPECTED-TOKEN"),
        "im_start_in_role_line": ("<|im_start|>user<|im_start|>\nx<|im_end|>", "E-PARSE-HEADER"),
        "invalid_utf8": (sysm.encode() + b"<|im_start|>user\n\xff<|im_end|>\n", "E-ENCODING-UTF8"),
        "unknown_role": (sysm + "<|im_start|>robot\nx<|im_end|>\n", "E-PARSE-HEADER"),
    })
    i.update({"empty": "", "only_start": "<|im_start|>", "no_newline": "<|im_start|>user<|im_end|>",
              "text_after_call": sysm + "<|im_start|>assistant\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>more<|im_end|>\n",
              "nested_call": sysm + "<|im_start|>assistant\n<tool_call>\n<tool_call>\n</tool_call><|im_end|>\n",
              "resp_in_assistant": sysm + "<|im_start|>assistant\n<tool_response>x</tool_response><|im_end|>\n",
              "think_tag": sysm + "<|im_start|>assistant\n<think>hm</think>ok<|im_end|>\n",
              "many_starts": "<|im_start|>" * 200, "bom": "\ufeff" + sysm, "crlf": sysm.replace("\n", "\r\n")})
    return y, n, i


def qwen3_cases():
    # ChatML's cases, plus <think> reasoning as Qwen3's template writes it.
    y, n, i = chatml_cases()
    del i["think_tag"]
    sysm = "<|im_start|>system\nYou are Qwen.<|im_end|>\n"
    for k, c in enumerate(CONTENTS):
        y[f"think_{k}"] = f"<|im_start|>user\nq<|im_end|>\n<|im_start|>assistant\n<think>\n{c.strip(chr(10)) or 'r'}\n</think>\n\nok<|im_end|>\n"
        y[f"think_call_{k}"] = f"<|im_start|>assistant\n<think>\nplan\n</think>\n\n{c}\n<tool_call>\n{{\"name\": \"f\", \"arguments\": {json.dumps({'q': c}, ensure_ascii=False)}}}\n</tool_call><|im_end|>\n"
    y["empty_think"] = "<|im_start|>assistant\n<think>\n\n</think>\n\nHi<|im_end|>\n"
    y["call_inside_think"] = "<|im_start|>assistant\n<think>\n<tool_call>\n{}\n</tool_call>\n</think>\n\nno<|im_end|>\n"
    y["tools_only_system"] = ("<|im_start|>system\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
                              "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
                              "{\"type\": \"function\", \"function\": {\"name\": \"f\"}}\n</tools>\n\nFor each function call, return a json "
                              "object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
                              "{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n"
                              "<|im_start|>user\nhi<|im_end|>\n")
    n["think_unclosed"] = (sysm + "<|im_start|>assistant\n<think>\nhm<|im_end|>\n", "E-PARSE-UNEXPECTED-TOKEN")
    i.update({"think_in_user": sysm + "<|im_start|>user\n<think>x</think><|im_end|>\n",
              "think_after_text": sysm + "<|im_start|>assistant\nok <think>x</think><|im_end|>\n",
              "close_without_open": sysm + "<|im_start|>assistant\nx</think>y<|im_end|>\n"})
    return y, n, i


def pcml_cases():
    y, n, i = {}, {}, {}
    for k, c in enumerate(CONTENTS):
        y[f"user_{k}"] = f"[USR]{c}[/USR]"
        y[f"ast_{k}"] = f"[AST]<think>{c}</think>\n{c}<end>[/AST]"
        y[f"meta_{k}"] = f"[USR]name=\"{c.replace(chr(92), chr(92)*2).replace(chr(34), chr(92)+chr(34))}\"[SEP]x[/USR]"
        n[f"bad_call_{k}"] = (f"[AST]<call>{c}</call><end>[/AST]", "E-BODY-CONSTRAINT-VIOLATION")
        n[f"truncated_{k}"] = (f"[USR]{c}", "E-STREAM-TRUNCATED")
        n[f"stray_{k}"] = (f"[USR]a[/USR]{c.strip() or 'x'}[USR]b[/USR]", "E-PARSE-STRAY-TEXT")
    y["call"] = "[AST]<call>{\"id\": \"c\", \"name\": \"f\", \"arguments\": {}}</call><end>[/AST]"
    y["obs"] = "[OBS]id=\"c\"[SEP]out[/OBS]"
    y["sys_tools"] = "[SYS]s\n<tools>[{\"name\":\"f\"}]</tools>[/SYS]"
    n.update({"ast_without_end": ("[AST]x[/AST]", "E-PARSE-UNEXPECTED-TOKEN"),
              "mismatched_close": ("[USR]x[/AST]", "E-PARSE-UNEXPECTED-TOKEN"),
              "think_in_user": ("[USR]<think>x</think>[/USR]", "E-PARSE-UNEXPECTED-TOKEN"),
              "stray_sep": ("[SEP][USR]x[/USR]", "E-PARSE-UNEXPECTED-TOKEN"),
              "invalid_utf8": (b"[USR]\xff[/USR]", "E-ENCODING-UTF8")})
    i.update({"empty": "", "meta_no_sep": "[USR]a=\"b\"[/USR]", "sep_empty_meta": "[USR][SEP]x[/USR]",
              "text_after_end": "[AST]x<end>junk[/AST]", "unclosed_quote": "[USR]a=\"b[SEP]c[/USR]",
              "end_without_close": "[AST]x<end>", "nested_open": "[USR][USR]x[/USR]",
              "many_opens": "[AST]" * 100, "bom": "\ufeff[USR]x[/USR]", "tools_bad": "[SYS]<tools>nope</tools>[/SYS]"})
    return y, n, i


def gabgpt_cases():
    y, n, i = {}, {}, {}
    for k, c in enumerate(CONTENTS):
        y[f"turn_{k}"] = f"<|user|>{c}<|assistant|>{c}<|end|>"
        y[f"think_{k}"] = f"<|user|>{c}<|think|>{c}<|assistant|>ok<|end|>"
        y[f"raw_start_{k}"] = f"{c}<|assistant|>ok<|end|>"
        n[f"truncated_{k}"] = (f"<|user|>q<|assistant|>{c}", "E-STREAM-TRUNCATED")
        n[f"stray_{k}"] = (f"<|user|>q<|assistant|>a<|end|>{c.strip() or 'x'}", "E-PARSE-STRAY-TEXT")
        n[f"utf8_{k}"] = (f"<|user|>{c}".encode() + b"\xff<|assistant|>a<|end|>", "E-ENCODING-UTF8")
    n.update({"stray_end": ("<|end|><|user|>x", "E-PARSE-UNEXPECTED-TOKEN"),
              "double_assistant": ("<|user|>q<|assistant|>a<|assistant|>b<|end|>", "E-PARSE-UNEXPECTED-TOKEN")})
    i.update({"empty": "", "only_tokens": "<|user|><|think|><|assistant|><|end|>", "double_think": "<|user|>q<|think|>a<|think|>b",
              "end_after_user": "<|user|>q<|end|>", "think_no_answer": "<|user|>q<|think|>hm<|end|>",
              "bom": "\ufeff<|user|>x", "many_users": "<|user|>" * 100, "partial_token": "<|user|>x<|assi",
              "whitespace_after_end": "<|user|>q<|assistant|>a<|end|>\n", "upper": "<|USER|>x"})
    return y, n, i


def ocml01_cases():
    y, n, i = {}, {}, {}
    for k, c in enumerate(CONTENTS):
        y[f"user_{k}"] = f"[BOS]<|im_start|>user\n{c}\n<|im_end|>[EOS]"
        y[f"named_{k}"] = f"[BOS]<|im_start|>user name=A{k}\n{c}<|im_end|>[EOS]"
        y[f"fim_{k}"] = f"<|fim_prefix|>{c}<|fim_middle|><|fim_suffix|>{c}"
        n[f"bad_role_{k}"] = (f"[BOS]<|im_start|>bot\n{c}<|im_end|>[EOS]", "E-PARSE-HEADER")
        n[f"truncated_{k}"] = (f"[BOS]<|im_start|>user\n{c}", "E-STREAM-TRUNCATED")
        n[f"bad_call_{k}"] = (f"[BOS]<|im_start|>assistant\n<|function_call|>\n{c}\n<|im_end|>[EOS]", "E-BODY-CONSTRAINT-VIOLATION")
    y["thoughts"] = "[BOS]<|im_start|>system\ns<|reflect|><|reason|><|im_end|>\n<|im_start|>assistant\n<|start_reflect|>r<|end_reflect|>\n<|start_reason|>x<|end_reason|>\nok<|im_end|>[EOS]"
    y["files"] = "a\n<|file_separator|>\nb"
    y["fim_completed"] = "<|fim_prefix|>p<|fim_middle|>m<|fim_suffix|>s"
    n.update({"name_with_space": ("[BOS]<|im_start|>user name=A B\nx<|im_end|>[EOS]", "E-PARSE-HEADER"),
              "developer_role": ("[BOS]<|im_start|>developer\nx<|im_end|>[EOS]", "E-PARSE-HEADER"),
              "token_in_role_line": ("[BOS]<|im_start|>user<|im_end|>", "E-PARSE-HEADER")})
    i.update({"empty": "", "fim_out_of_order": "<|fim_suffix|>a<|fim_prefix|>b", "eos_only": "[EOS]", "bos_only": "[BOS]",
              "text_after_eos": "[BOS]<|im_start|>user\nx<|im_end|>[EOS]junk", "flags_in_user": "[BOS]<|im_start|>user\n<|reflect|><|im_end|>[EOS]",
              "unclosed_thought": "[BOS]<|im_start|>assistant\n<|start_reason|>x<|im_end|>[EOS]", "many_separators": "<|file_separator|>" * 50,
              "bom": "\ufeff[BOS]", "nested_fim": "<|fim_prefix|><|fim_prefix|>x"})
    return y, n, i


def main():
    suites = {"ocml-2.2": openchatml_cases("ocml-2.2"), "harmony": openchatml_cases("harmony"),
              "ocml-2.0": ocml20_cases(), "chatml": chatml_cases(), "pcml": pcml_cases(),
              "gabgpt": gabgpt_cases(), "ocml-0.1": ocml01_cases(), "qwen3": qwen3_cases()}
    for dialect, (y, n, i) in suites.items():
        d = os.path.join(ROOT, dialect)
        if os.path.isdir(d):
            for f in os.listdir(d):
                os.remove(os.path.join(d, f))
        for name, text in y.items():
            write(dialect, "y", name, text)
        for name, case in n.items():
            if case is not None:
                write(dialect, "n", name, case[0], case[1])
        for name, text in i.items():
            write(dialect, "i", name, text)
        counts = {k: len([f for f in os.listdir(d) if f.startswith(k + "_") and f.endswith(".txt")]) for k in "yni"}
        print(dialect, counts)
    for m in MISMATCHES:
        print("MISMATCH", m)
    sys.exit(1 if MISMATCHES else 0)


main()
