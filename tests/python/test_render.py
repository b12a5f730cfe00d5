# SPDX-License-Identifier: Apache-2.0
"""ocml.render and its batch form against the CLI (`ocml render --jsonl`), for every dialect
and for a model folder, errors included."""

from __future__ import annotations

import json
import pathlib

import pytest

import ocml
from conftest import DIALECTS, SOURCE, jsonl_out, quiet as _quiet, run_cli


def cli_render(cli: str, fmt: str, requests: list[dict]) -> list[dict]:
    stdin = "".join(json.dumps(r) + "\n" for r in requests)
    return jsonl_out(run_cli(cli, ["render", "-d", fmt, "--jsonl"], stdin))


def compare(cli_lines: list[dict], ours: list) -> None:
    assert len(cli_lines) == len(ours)
    for i, (want, got) in enumerate(zip(cli_lines, ours)):
        if "error" in want:
            assert isinstance(got, ocml.Error), (i, want, got)
            assert got.code == want["error"]["code"], i
            assert (got.line, got.column) == (want["error"]["line"], want["error"]["column"]), i
        else:
            assert got == want["text"], i


@pytest.mark.parametrize("dialect", DIALECTS)
def test_render_batch_equals_the_cli_for_every_dialect(cli, requests, dialect):
    with _quiet():
        ours = ocml.render_batch(requests, format=dialect, errors="return")
    compare(cli_render(cli, dialect, requests), ours)
    # One at a time, the same text (the batch's threads change nothing).
    for req, got in zip(requests[:10], ours[:10]):
        if isinstance(got, ocml.Error):
            with pytest.raises(type(got)):
                with _quiet():
                    ocml.render(req, format=dialect)
        else:
            with _quiet():
                assert ocml.render(req, format=dialect) == got


def model_dirs() -> list[pathlib.Path]:
    dirs = [SOURCE / "examples" / "models" / "chatml-tools"]
    shared = SOURCE.parent / "shared" / "reference" / "models"
    if shared.is_dir():
        dirs += sorted(p for p in shared.iterdir() if (p / "tokenizer_config.json").exists())[:6]
    return dirs


@pytest.mark.parametrize("model", model_dirs(), ids=lambda p: p.name)
def test_render_equals_the_cli_for_a_model_folder(cli, requests, model):
    fmt = f"model:{model}"
    with _quiet():
        ours = ocml.render_batch(requests, format=fmt, errors="return")
    compare(cli_render(cli, fmt, requests), ours)


def test_options_read_like_apply_chat_template():
    msgs = [{"role": "user", "content": "Hi"}]
    on = ocml.render(msgs, format="qwen3", add_generation_prompt=True)
    off = ocml.render(msgs, format="qwen3", add_generation_prompt=True, enable_thinking=False)
    assert on.endswith("<|im_start|>assistant\n")
    assert off.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    # The same through chat_template_kwargs, and through the request dict.
    assert ocml.render(msgs, format="qwen3", add_generation_prompt=True,
                       chat_template_kwargs={"enable_thinking": False}) == off
    assert ocml.render({"messages": msgs, "add_generation_prompt": True,
                        "chat_template_kwargs": {"enable_thinking": False}},
                       format="qwen3") == off
    # JSON text is taken as it is.
    assert ocml.render(json.dumps({"messages": msgs}), format="chatml") == \
        "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful " \
        "assistant.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"


def test_continue_final_message_prefills():
    msgs = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hel"}]
    text = ocml.render(msgs, format="chatml", continue_final_message=True)
    assert text.endswith("<|im_start|>assistant\nHel")


def test_an_unknown_kwarg_is_a_warning_naming_it():
    with pytest.warns(ocml.OcmlWarning, match="no_such_option") as rec:
        ocml.render([{"role": "user", "content": "Hi"}], format="chatml", no_such_option=1)
    assert rec[0].message.code.startswith("E-")


def test_format_objects_and_names():
    f = ocml.Format("gpt-oss")
    assert f.dialect == "harmony" and not f.is_model
    assert "<|return|>" in f.stop() and "<|call|>" in f.stop()
    assert "reasoning" in f.holds()
    m = ocml.Format(f"model:{SOURCE / 'examples' / 'models' / 'chatml-tools'}")
    assert m.is_model and m.dialect is None
    assert "<|im_end|>" in m.stop()
    assert "tool calls" in m.holds()
    assert ocml.render([{"role": "user", "content": "x"}], format=m) == \
        ocml.render([{"role": "user", "content": "x"}], format=m.name)
