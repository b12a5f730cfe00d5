# SPDX-License-Identifier: Apache-2.0
"""Errors, warnings and hostile input through the Python package: every failure is an
ocml.Error subclass with its code and position, never a crash."""

from __future__ import annotations

import threading

import pytest

import ocml


def test_error_classes_carry_code_and_position():
    with pytest.raises(ocml.JsonInputError) as e:
        ocml.render('{"messages": [{"role": "bot", "content": "x"}]}', format="chatml")
    err = e.value
    assert isinstance(err, ocml.Error)
    assert err.code == "E-JSON-INPUT"
    assert (err.line, err.column) == (1, 24)  # at "bot"
    assert "bot" in err.message
    with pytest.raises(ocml.StreamTruncatedError) as e:
        ocml.parse("<|im_start|>user\nHi", format="chatml")
    assert e.value.line == 2 and e.value.offset == 19


def test_lenient_parse_warns_with_the_code():
    with pytest.warns(ocml.OcmlWarning) as rec:
        out = ocml.parse("<|im_start|>user\nHi", format="chatml", lenient=True)
    assert out["messages"][0]["content"] == "Hi"
    assert rec[0].message.code == "E-STREAM-TRUNCATED"


def test_unknown_formats_and_bad_arguments():
    with pytest.raises(ocml.JsonInputError):
        ocml.Format("no-such-dialect")
    with pytest.raises(ocml.IoError):
        ocml.Format("model:/no/such/folder")
    with pytest.raises(TypeError):
        ocml.render(42, format="chatml")
    with pytest.raises(TypeError):
        ocml.render([], format=3.5)
    with pytest.raises(ValueError):
        ocml.render_batch([], format="chatml", errors="ignore")
    with pytest.raises(TypeError):
        ocml.parse([1, 2, 3], format="chatml")  # IDs need a tokenizer


def test_a_million_deep_request_is_an_error_not_a_crash():
    deep = "[" * 1_000_000 + "]" * 1_000_000
    with pytest.raises(ocml.LimitExceededError):
        ocml.render('{"messages": ' + deep + "}", format="chatml")
    with pytest.raises(ocml.LimitExceededError):
        ocml.render('{"messages": [], "tools": ' + deep + "}", format="qwen3")


def test_sizes_and_numbers_from_the_caller_are_bounded(byte_tokenizer_path):
    # A number beyond any double, and integers beyond 64 bits where a count is asked for.
    with pytest.raises(ocml.JsonInputError):
        ocml.render('{"messages": [{"role": "user", "content": "x"}], "seed": 1e999999}',
                    format="chatml")
    tok = ocml.Tokenizer.from_file(byte_tokenizer_path)
    with pytest.raises(ValueError):
        tok.decode([2**40])
    with pytest.raises(ValueError):
        tok.decode([-1])
    with pytest.raises(TypeError):
        ocml.render_ids([{"role": "user", "content": "x"}], tok, format="chatml",
                        max_tokens=10**30)
    # A billion jobs is bounded by the cores before any thread is made.
    one = ocml.render('{"messages": []}', format="chatml")
    assert ocml.render_batch(['{"messages": []}'] * 3, format="chatml", jobs=10**9) == [one] * 3
    # Files without an end (a device) are refused, not read forever.
    with pytest.raises(ocml.IoError):
        ocml.Format("model:/dev/zero")
    with pytest.raises(ocml.Error):
        ocml.Tokenizer.from_file("/dev/zero")
    with pytest.raises(ocml.Error):
        ocml.ChatTemplate.from_file("/dev/zero")


def test_a_batch_keeps_its_other_items():
    items = ['{"messages": [{"role": "user", "content": "a"}]}', "{not json",
             '{"messages": [{"role": "user", "content": "b"}]}']
    out = ocml.render_batch(items, format="chatml", errors="return")
    assert isinstance(out[1], ocml.JsonInputError)
    assert out[0].endswith("a<|im_end|>\n") and out[2].endswith("b<|im_end|>\n")
    with pytest.raises(ocml.JsonInputError):
        ocml.render_batch(items, format="chatml")


def test_a_decoder_is_finished_once_and_refuses_the_wrong_input():
    d = ocml.Decoder("chatml")
    d.push("<|im_start|>user\nHi<|im_end|>\n")
    d.finish()
    with pytest.raises(ValueError):
        d.push("more")
    with pytest.raises(TypeError):
        ocml.Decoder("chatml").push([1, 2])  # IDs without a tokenizer
    with pytest.raises(ValueError):
        ocml.Decoder("chatml", events="nope")


def test_threads_share_formats_and_get_the_same_results():
    msgs = [{"role": "user", "content": f"n{i}"} for i in range(50)]
    want = [ocml.render([m], format="harmony") for m in msgs]
    got = [None] * len(msgs)

    def work(k):
        for i in range(k, len(msgs), 4):
            got[i] = ocml.render([msgs[i]], format="harmony")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == want


def test_convert_between_dialects():
    text = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello<|im_end|>\n"
    out = ocml.convert(text, format="chatml", to="ocml-2.2")
    back = ocml.parse(out, format="ocml-2.2")
    assert [m["content"] for m in back["messages"]] == ["Hi", "Hello"]
    with pytest.raises(ValueError):
        ocml.convert(text, format="chatml", to="nope")
