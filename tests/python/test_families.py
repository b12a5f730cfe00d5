# SPDX-License-Identifier: Apache-2.0
"""Model families out of the box (issue 26): a folder holding only a family's real chat
template parses with the curated response template its fingerprint picks
(data/response_templates/), and the family scoreboard (tests/tools/check_families.py: the
real output shapes of tests/families/, one-shot and streamed one byte at a time) holds its
floor."""

from __future__ import annotations

import collections
import importlib.util
import json
import subprocess
import sys

import pytest

import ocml
from conftest import SOURCE

TEMPLATES = SOURCE.parent / "shared" / "reference" / "templates" / "models"
DATA = SOURCE / "data" / "response_templates"
CURATED = sorted(p for p in DATA.glob("*.json") if p.name != "index.json")

# Which curated template a reference chat template's fingerprint picks (None: none).
PICKS = {
    "Qwen-Qwen3-0.6B.jinja": "qwen3",
    "Qwen-QwQ-32B.jinja": "qwen3",
    "Qwen-Qwen2.5-7B-Instruct.jinja": "hermes",
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja": "hermes",
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja": "hermes",
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja": "deepseek_r1",
    "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja": "deepseek_r1",
    "deepseek-ai-DeepSeek-V3.1.jinja": "deepseek_v3",
    "GLM-4.6.jinja": "glm",
    "GLM-4.7-Flash.jinja": "glm",
    "moonshotai-Kimi-K2.jinja": "kimi_k2",
    "MiniMax-M2.jinja": "minimax_m2",
    "ByteDance-Seed-OSS.jinja": "seed_oss",
    "Qwen3-Coder.jinja": "qwen3_coder",
    "Qwen3.5-4B.jinja": "qwen3_coder",
    "openai-gpt-oss-120b.jinja": "gpt_oss",
    "meta-llama-Llama-3.1-8B-Instruct.jinja": "llama3",
    "meta-llama-Llama-3.2-3B-Instruct.jinja": "llama3",
    "meetkai-functionary-medium-v3.1.jinja": None,
    "unsloth-mistral-Devstral-Small-2507.jinja": "mistral_v11",
    "mistralai-Ministral-3-14B-Reasoning-2512.jinja": "mistral_v11",
    "ibm-granite-granite-3.3-2B-Instruct.jinja": "granite3",
    "ibm-granite-granite-4.0.jinja": "granite4",
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja": "command_r7b",
    "google-gemma-4-31B-it.jinja": "gemma4",
    "microsoft-Phi-3.5-mini-instruct.jinja": None,
}


def scoreboard():
    spec = importlib.util.spec_from_file_location(
        "check_families", SOURCE / "tests" / "tools" / "check_families.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", CURATED, ids=lambda p: p.stem)
def test_a_curated_template_loads_and_names_its_fields(path):
    t = ocml.ResponseTemplate.from_file(path)
    assert "content" in t.fields and "tool_calls" in t.fields


def test_the_index_names_every_file_once_with_a_fingerprint_and_a_source():
    index = json.loads((DATA / "index.json").read_text())["templates"]
    assert sorted(e["file"] for e in index) == sorted(p.name for p in CURATED)
    assert len({e["name"] for e in index}) == len(index)
    for e in index:
        assert e["all"] and e["source"] and e["family"], e["name"]


@pytest.mark.parametrize("name", sorted(PICKS))
def test_a_reference_chat_template_picks_its_family(name):
    if not (TEMPLATES / name).is_file():
        pytest.skip(f"{TEMPLATES / name} is absent (the shared reference templates)")
    source = ocml.ChatTemplate.from_file(TEMPLATES / name).format().response_source
    if PICKS[name] is None:  # no family: derived where derivation verifies, else none
        assert source["kind"] in ("none", "derived"), source
    else:
        assert (source["kind"], source["name"]) == ("curated", PICKS[name]), source
        assert PICKS[name] in source["why"]


def test_without_the_curated_templates_a_folder_still_refuses_to_parse():
    chat = ocml.ChatTemplate("{% for m in messages %}<|im_start|>{{ m.content }}<tool_call>"
                             "<|im_end|>{% endfor %}")
    assert chat.format().response_source["name"] == "hermes"
    f = chat.format(curated=False)
    assert f.response_source["kind"] == "none"
    with pytest.raises(ocml.Error, match="no response_template"):
        ocml.parse("Hi", format=f, completion=True)


def test_the_families_real_outputs_parse_and_stream_the_same():
    if not TEMPLATES.is_dir():
        pytest.skip(f"{TEMPLATES} is absent (the shared reference templates)")
    scores = scoreboard().score({}, TEMPLATES)
    total = collections.Counter()
    for counts in scores.values():
        total.update(counts)
    assert total["cases"] == 219
    # Session 17: 173 of the 192 cases with a reference chat template, and 26 of the 26
    # without one (Phi-4-mini's, older Mistral's…) with the curated template that stands in
    # for their folder; one (DeepSeek V3.2's DSML) has no response template at all. (177 in
    # session 16: four cut or broken JSON calls the peers' one-shot parsers make text are
    # calls now, because the stream begins a call at its first argument: decision 94.)
    assert total["passed"] >= 173, dict(total)
    # Every case, passing or not, streamed in pieces of every size 1..16 bytes folds to its
    # own one-shot parse, argument bytes included.
    assert total["stream_differs"] == 0, dict(total)
    assert total["stand_in_passed"] >= 26, dict(total)
    for family, counts in scores.items():
        measured = counts["cases"] - counts["refused"] - counts["stand_in_passed"] - \
            counts["stand_in_missed"]
        assert counts["passed"] >= measured * 2 // 3, (family, dict(counts))


def test_ocml_formats_lists_explains_and_prints_the_curated_templates(tmp_path, cli):
    ocml_cli = cli
    listing = json.loads(subprocess.run([ocml_cli, "formats", "--json"], check=True,
                                        capture_output=True, text=True).stdout)
    assert [t["name"] for t in listing["curated"]][:2] == ["gpt_oss", "kimi_k2"]
    assert "chatml" in listing["dialects"]
    (tmp_path / "tokenizer_config.json").write_text(json.dumps(
        {"chat_template": "{{ '[TOOL_CALLS]' }}{{ '[ARGS]' }}", "eos_token": "</s>"}))
    explained = subprocess.run([ocml_cli, "formats", "--explain", str(tmp_path), "--json"],
                               check=True, capture_output=True, text=True)
    choice = json.loads(explained.stdout)
    assert (choice["kind"], choice["name"]) == ("curated", "mistral_v11")
    printed = subprocess.run([ocml_cli, "formats", "--print", "mistral_v11"], check=True,
                             capture_output=True, text=True).stdout
    assert json.loads(printed) == json.loads((DATA / "mistral_v11.json").read_text())
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"chat_template": "{{ 1 }}"}))
    none = subprocess.run([ocml_cli, "formats", "--explain", str(tmp_path)],
                          capture_output=True, text=True)
    assert none.returncode == 1 and "no curated template" in none.stdout


def test_the_derivation_table_of_the_docs_is_what_the_build_gives(cli):
    if not TEMPLATES.is_dir():
        pytest.skip(f"{TEMPLATES} is absent (the shared reference templates)")
    r = subprocess.run([sys.executable, str(SOURCE / "tests" / "tools" / "derive_report.py"),
                        cli, "--check", str(SOURCE / "docs" / "response-templates.md")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:]


@pytest.mark.parametrize("name", ["Qwen-Qwen3-0.6B.jinja", "moonshotai-Kimi-K2.jinja",
                                  "GLM-4.6.jinja", "meta-llama-Llama-3.2-3B-Instruct.jinja",
                                  "Cohere2MoE.jinja"])
def test_a_derived_template_loads_as_a_response_template_and_parses(cli, name):
    if not (TEMPLATES / name).is_file():
        pytest.skip(f"{TEMPLATES / name} is absent (the shared reference templates)")
    r = subprocess.run([cli, "template", "derive", str(TEMPLATES / name)], capture_output=True,
                       text=True, check=True)
    spec = json.loads(r.stdout)
    # transformers' keys only (its loader refuses others), unless the syntax needs one of
    # ocml's extensions, which stderr then says.
    allowed = {"open", "open_pattern", "close", "close_pattern", "content", "content_args",
               "repeats", "optional", "transform", "transform_each", "join"}
    portable = "needs ocml's x-ocml-* extensions" not in r.stderr
    # Command-R's stray markers around the content need x-ocml-skip; the others verify in
    # transformers' keys alone.
    assert portable == (name != "Cohere2MoE.jinja"), r.stderr
    assert set(spec) <= {"defaults", "fields", "start_anchor", "start_anchor_pattern"} or \
        not portable
    for field in spec["fields"].values():
        keys = set(field) if portable else {k for k in field if not k.startswith("x-ocml-")}
        assert keys <= allowed, field
        assert "join" not in field or field.get("repeats") is True
    t = ocml.ResponseTemplate(json.dumps(spec))
    assert "content" in t.fields
    assert "verified: one call" in r.stderr
