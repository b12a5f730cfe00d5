# SPDX-License-Identifier: Apache-2.0
"""ocml.parse against the CLI on the whole conformance corpus (every dialect, strict and
lenient, OpenAI and native forms), and the streaming Decoder at every chunk size."""

from __future__ import annotations

import json

import pytest

import ocml
from conftest import DIALECTS, SOURCE, jsonl_out, quiet, run_cli

CORPUS = SOURCE / "tests" / "conformance"


def cases(dialect: str) -> list[str]:
    files = sorted((CORPUS / dialect).glob("*.txt"))
    return [f.read_bytes().decode("utf-8", errors="surrogateescape") for f in files]


def cli_parse(cli: str, dialect: str, texts: list[str], *flags: str) -> list[dict]:
    stdin = "".join(json.dumps(t) + "\n" for t in texts)
    return jsonl_out(run_cli(cli, ["parse", "-d", dialect, "--jsonl", "--seed", "1", *flags],
                             stdin))


@pytest.mark.parametrize("lenient", [False, True], ids=["strict", "lenient"])
@pytest.mark.parametrize("openai", [True, False], ids=["openai", "native"])
@pytest.mark.parametrize("dialect", DIALECTS)
def test_parse_equals_the_cli_on_the_conformance_corpus(cli, dialect, openai, lenient):
    # Cases that are not UTF-8 cannot be JSON strings for the CLI's batch lines: they are
    # left to the C++ suite (and to the Decoder test below, which takes bytes).
    texts = [t for t in cases(dialect) if not any("\udc80" <= c <= "\udcff" for c in t)]
    assert texts, f"no conformance cases for {dialect}"
    flags = (["--openai"] if openai else []) + (["--lenient"] if lenient else [])
    want = cli_parse(cli, dialect, texts, *flags)
    with quiet():
        got = ocml.parse_batch(texts, format=dialect, openai=openai, lenient=lenient,
                               call_id_seed=1, errors="return")
    assert len(want) == len(got) == len(texts)
    failures = 0
    for i, (w, g) in enumerate(zip(want, got)):
        if "error" in w:
            failures += 1
            assert isinstance(g, ocml.Error), (i, texts[i][:80], w)
            assert g.code == w["error"]["code"], i
            assert (g.line, g.column) == (w["error"]["line"], w["error"]["column"]), i
        else:
            assert g == w, (i, texts[i][:80])
    if not lenient:
        assert failures > 0, "the corpus's n_ cases must fail in strict mode"
    # One at a time: the same result as the batch.
    for t, g in list(zip(texts, got))[:15]:
        if isinstance(g, ocml.Error):
            with pytest.raises(type(g)), quiet():
                ocml.parse(t, format=dialect, openai=openai, lenient=lenient, call_id_seed=1)
        else:
            with quiet():
                assert ocml.parse(t, format=dialect, openai=openai, lenient=lenient,
                                  call_id_seed=1) == g


def events_at(fmt: str, data: bytes, size: int, **kw) -> list:
    d = ocml.Decoder(fmt, **kw)
    out = []
    for i in range(0, len(data), size):
        out += d.push(data[i:i + size])
    return out + d.finish()


# Kinds whose events a chunk boundary may cut anywhere (as tests/span_test.cpp joins them).
JOINED = {"content", "reasoning", "reflection", "introspection", "structure", "skipped"}


def joined(events: list) -> tuple[list, list]:
    """The events with adjacent slices of one joined kind merged, and the diagnostics apart."""
    out, diags = [], []
    for e in events:
        if e["event"] == "diagnostic":
            diags.append((e["code"], e.get("line"), e.get("column")))
            continue
        if (out and e["event"] in JOINED and out[-1]["event"] == e["event"]
                and out[-1]["span"][1] == e["span"][0]):
            merged = dict(out[-1], span=[out[-1]["span"][0], e["span"][1]])
            if "text" in out[-1] or "text" in e:
                # A chunk boundary may cut a character: the slices join as bytes (events
                # carry such halves as surrogate escapes).
                raw = (out[-1].get("text", "").encode("utf-8", "surrogateescape") +
                       e.get("text", "").encode("utf-8", "surrogateescape"))
                merged["text"] = raw.decode("utf-8", "surrogateescape")
            out[-1] = merged
            continue
        e = dict(e)
        e.pop("offset", None)
        out.append(e)
    return out, diags


@pytest.mark.parametrize("dialect", DIALECTS)
def test_decoder_events_do_not_depend_on_chunking_and_tile_the_input(dialect):
    for text in cases(dialect)[:40]:
        data = text.encode("utf-8", errors="surrogateescape")
        whole_events = events_at(dialect, data, max(1, len(data)), lenient=True)
        whole = joined(whole_events)
        for size in (1, 2, 3, 7, 64):
            assert joined(events_at(dialect, data, size, lenient=True)) == whole, (size, text[:60])
        # Spans tile the input: each event begins where the last one ended.
        at = 0
        for e in whole_events:
            if "span" in e:
                assert e["span"][0] == at, e
                at = e["span"][1]
        assert at == len(data)


def test_openai_chunks_fold_into_the_parsed_message():
    completion = (SOURCE / "tests" / "fixtures" / "completions" / "chatml-call.txt").read_text()
    chunks = events_at("chatml", completion.encode(), 5, events="openai", completion=True,
                       call_id_seed=1)
    content, calls = "", {}
    # The fixture goes on into a user turn it leaves open: one warning line, in the stream
    # as OpenAI errors are.
    assert [c["error"]["code"] for c in chunks if "error" in c] == ["E-STREAM-TRUNCATED"]
    for c in chunks:
        if "error" in c:
            continue
        delta = c["choices"][0]["delta"]
        content += delta.get("content") or ""
        for tc in delta.get("tool_calls") or []:
            slot = calls.setdefault(tc["index"], {"name": "", "arguments": "", "id": None})
            slot["id"] = tc.get("id") or slot["id"]
            fn = tc.get("function") or {}
            slot["name"] += fn.get("name") or ""
            slot["arguments"] += fn.get("arguments") or ""
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
    with quiet():
        parsed = ocml.parse(completion, format="chatml", completion=True, call_id_seed=1,
                            lenient=True)
    message = next(m for m in parsed["messages"] if m["role"] == "assistant")
    assert (message.get("content") or "") == content
    assert [c["function"]["name"] for c in message["tool_calls"]] == \
        [calls[i]["name"] for i in sorted(calls)]
    assert [json.loads(c["function"]["arguments"]) for c in message["tool_calls"]] == \
        [json.loads(calls[i]["arguments"]) for i in sorted(calls)]


def test_a_model_format_parses_through_its_response_template():
    model = f"model:{SOURCE / 'examples' / 'models' / 'chatml-tools'}"
    fmt = ocml.Format(model)
    if "response_template" not in (SOURCE / "examples/models/chatml-tools/tokenizer_config.json").read_text():
        pytest.skip("the example model has no response template")
    out = ocml.parse('<tool_call>\n{"name": "f", "arguments": {"x": 1}}\n</tool_call>',
                     format=fmt, completion=True, call_id_seed=3)
    call = out["messages"][0]["tool_calls"][0]
    assert call["function"]["name"] == "f"
    assert json.loads(call["function"]["arguments"]) == {"x": 1}
    events = events_at(fmt, b'Hi <tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>', 4)
    assert any(e["type"] == "region_close" for e in events)
