# SPDX-License-Identifier: Apache-2.0
"""ocml.ChatTemplate and ocml.ResponseTemplate: the real reference chat templates rendered by
ocml from Python equal Python's Jinja2 rendering them as transformers does (the reference
renderer of tests/tools/render_template.py), a format made of templates equals the model
folder's, and a response template parses real output shapes."""

from __future__ import annotations

import copy
import importlib.util
import json
import os

import pytest

import ocml
from conftest import SOURCE, make_requests, quiet

MODEL = SOURCE / "examples" / "models" / "chatml-tools"
TEMPLATES = SOURCE.parent / "shared" / "reference" / "templates" / "models"
NOW = "2026-11-27T10:00:00"


def reference_renderer():
    """tests/tools/render_template.py (Jinja2 as transformers sets it up), or a skip."""
    pytest.importorskip("jinja2", reason="python3-jinja2 (the reference renderer) is absent")
    spec = importlib.util.spec_from_file_location(
        "render_template", SOURCE / "tests" / "tools" / "render_template.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reference_templates() -> list:
    if not TEMPLATES.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(
            reason=f"{TEMPLATES} is absent (the shared reference templates)"))]
    return sorted(TEMPLATES.glob("*.jinja"))


@pytest.mark.parametrize("path", reference_templates(),
                         ids=lambda p: p.stem if p is not None else "absent")
def test_chat_template_equals_jinja2_on_the_reference_templates(path, monkeypatch):
    ref = reference_renderer()
    monkeypatch.setenv("OCML_TEMPLATE_NOW", NOW)
    source = path.read_text(encoding="utf-8")
    jinja = ref.make_environment().from_string(source)
    ours = ocml.ChatTemplate(source)
    compared = 0
    # The special tokens a raw template (no config) is given by its caller.
    special = {"bos_token": "<s>", "eos_token": "</s>"}
    plain = {"messages": [{"role": "system", "content": "Be brief."},
                          {"role": "user", "content": "Hi"}]}
    for request in [plain, *make_requests(12, seed=11)]:
        request = dict(request, add_generation_prompt=True)
        try:
            want = ref.render_line(jinja, json.dumps(request), special)
        except Exception as e:  # noqa: BLE001 (Jinja2's every failure: ocml must fail too)
            code, _ = ref.error_of(e)
            with pytest.raises(ocml.Error) as raised, quiet():
                ours.render(copy.deepcopy(request), now=NOW, **special)
            assert raised.value.code.startswith("E-TEMPLATE"), (code, raised.value)
            continue
        with quiet():
            assert ours.render(copy.deepcopy(request), now=NOW, **special) == want
        compared += 1
    # Every reference template renders some of these (a few refuse tool replies or systems).
    assert compared > 0


def test_render_variables_is_jinja_render_with_exactly_those_variables():
    t = ocml.ChatTemplate("{{ greeting }}, {{ name | upper }}{% if x is defined %}!{% endif %}")
    assert t.render_variables({"greeting": "Hello", "name": "ada"}) == "Hello, ADA"
    assert t.render_variables({"greeting": "Hi", "name": "b", "x": 1}) == "Hi, B!"
    with pytest.raises(ocml.TemplateSyntaxError) as e:
        ocml.ChatTemplate("{% if %}")
    assert e.value.line == 1


def test_a_config_file_gives_its_special_tokens_and_renders_like_its_folder(requests):
    t = ocml.ChatTemplate.from_file(MODEL / "tokenizer_config.json")
    assert t.special_tokens["eos_token"] == json.loads(
        (MODEL / "tokenizer_config.json").read_text())["eos_token"]
    folder = ocml.Format(f"model:{MODEL}")
    with quiet():
        for request in requests[:20]:
            assert t.render(request) == ocml.render(request, format=folder)


def test_a_format_of_templates_parses_and_streams_like_the_folder():
    config = MODEL / "tokenizer_config.json"
    f = ocml.ChatTemplate.from_file(config).format(
        ocml.ResponseTemplate.from_file(config), name="mine")
    folder = ocml.Format(f"model:{MODEL}")
    assert f.name == "mine" and f.is_model
    assert f.stop() == folder.stop()
    output = ('<think>\nsunny?\n</think>\n\nLet me look.\n<tool_call>\n{"name": "get_weather", '
              '"arguments": {"city": "Paris"}}\n</tool_call><|im_end|>')
    ours = ocml.parse(output, format=f, completion=True, call_id_seed=5)
    assert ours == ocml.parse(output, format=folder, completion=True, call_id_seed=5)
    message = ours["messages"][0]
    assert message["reasoning_content"] == "sunny?"
    assert json.loads(message["tool_calls"][0]["function"]["arguments"]) == {"city": "Paris"}
    d = ocml.Decoder(f, events="openai", completion=True, call_id_seed=5)
    chunks = [c for i in range(0, len(output), 7) for c in d.push(output[i:i + 7])]
    chunks += d.finish()
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks) == \
        message["content"]


def test_a_format_without_a_response_template_renders_and_refuses_to_parse():
    f = ocml.ChatTemplate.from_file(MODEL / "tokenizer_config.json").format(stop=["<|x|>"],
                                                                            curated=False)
    assert "<|x|>" in f.stop()
    assert ocml.render([{"role": "user", "content": "Hi"}], format=f).startswith("<|im_start|>")
    with pytest.raises(ocml.Error, match="no response_template"):
        ocml.parse("Hi", format=f, completion=True)


def test_response_template_parses_real_output_shapes():
    spec = json.loads((MODEL / "tokenizer_config.json").read_text())["response_template"]
    r = ocml.ResponseTemplate(spec)
    assert set(r.fields) >= {"thinking", "tool_calls", "content"}
    # Hermes-style parallel calls, as vLLM's hermes tool parser tests give them.
    out = ('<tool_call>\n{"name": "a", "arguments": {"x": 1}}\n</tool_call>\n'
           '<tool_call>\n{"name": "b", "arguments": {}}\n</tool_call><|im_end|>')
    native = r.parse(out, openai=False)
    assert [c["function"]["name"] for c in native["tool_calls"]] == ["a", "b"]
    openai = r.parse(out, call_id_seed=1)
    assert [json.loads(c["function"]["arguments"]) for c in openai["tool_calls"]] == [{"x": 1}, {}]
    assert all(c["id"] for c in openai["tool_calls"])
    assert r.parse(out, call_id_seed=1) == openai  # the seed makes the ids reproducible
    # The same spec as JSON text, and found inside a whole config.
    assert ocml.ResponseTemplate(json.dumps(spec)).parse(out, openai=False) == native
    assert ocml.ResponseTemplate.from_file(MODEL / "tokenizer_config.json").parse(
        out, openai=False) == native


def test_response_template_errors_carry_the_position():
    r = ocml.ResponseTemplate.from_file(MODEL / "tokenizer_config.json")
    broken = '<tool_call>\n{"name": "a", "arguments": {"x": }\n</tool_call>'
    with pytest.raises(ocml.Error) as e:
        r.parse(broken)
    assert e.value.offset > 0 and e.value.line >= 1
    with pytest.warns(ocml.OcmlWarning):
        lenient = r.parse(broken, lenient=True)
    assert isinstance(lenient, dict)
    with pytest.raises(ocml.Error):
        ocml.ResponseTemplate({"fields": 3})
    with pytest.raises(ocml.IoError):
        ocml.ResponseTemplate.from_file(os.devnull + "/nope")
