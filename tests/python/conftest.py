# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures of the Python package's tests: the CLI they compare against, the source
tree's corpora, a byte-level tokenizer holding every dialect's control tokens, and a set of
realistic OpenAI requests."""

from __future__ import annotations

import json
import os
import pathlib
import random
import subprocess
import warnings

import pytest

import ocml

SOURCE = pathlib.Path(os.environ.get("OCML_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
DIALECTS = [d["name"] for d in ocml.dialects()]


@pytest.fixture(scope="session")
def cli() -> str:
    path = os.environ.get("OCML_CLI")
    if not path or not os.path.exists(path):
        pytest.skip("OCML_CLI is not set to the ocml program (ctest sets it)")
    return path


def quiet() -> "_Quiet":
    """A context in which ocml's warnings are not shown (the test compares results)."""
    return _Quiet()


class _Quiet:
    def __enter__(self):
        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("ignore")
        return self

    def __exit__(self, *exc):
        self._ctx.__exit__(*exc)
        return False


def run_cli(cli: str, args: list[str], stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([cli, *args], input=stdin.encode(), capture_output=True, check=False)


def jsonl_out(proc: subprocess.CompletedProcess) -> list[dict]:
    return [json.loads(line) for line in proc.stdout.decode().splitlines()]


@pytest.fixture(scope="session")
def byte_tokenizer_path() -> str:
    """A byte-level tokenizer.json holding every dialect's control tokens as added tokens
    (tests/fixtures/tokenizers/bytes.json; the C API test reads it too)."""
    return str(SOURCE / "tests" / "fixtures" / "tokenizers" / "bytes.json")


def make_requests(n: int, seed: int = 7) -> list[dict]:
    """Realistic chat requests: system prompts, several turns, tools with calls and replies,
    reasoning, unicode, text that looks like markup."""
    rng = random.Random(seed)
    words = ["weather", "Paris", "naïve", "日本語", "<b>bold</b>", "a\nb", "tab\there",
             "emoji 🙂", "quote \"x\"", "back\\slash", "1 < 2 > 0"]
    tool = {"type": "function", "function": {
        "name": "get_weather", "description": "Weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}}
    out = []
    for i in range(n):
        msgs = []
        if rng.random() < 0.5:
            msgs.append({"role": "system", "content": "Be brief. " + rng.choice(words)})
        for turn in range(rng.randint(1, 3)):
            msgs.append({"role": "user", "content": " ".join(rng.choices(words, k=4))})
            if turn == 0 and rng.random() < 0.3:
                cid = f"call_{i}"
                msgs.append({"role": "assistant", "content": "", "tool_calls": [
                    {"id": cid, "type": "function",
                     "function": {"name": "get_weather",
                                  "arguments": json.dumps({"city": rng.choice(words)})}}]})
                msgs.append({"role": "tool", "tool_call_id": cid, "content": "sunny"})
            a = {"role": "assistant", "content": " ".join(rng.choices(words, k=5))}
            if rng.random() < 0.3:
                a["reasoning_content"] = "think " + rng.choice(words)
            msgs.append(a)
        msgs.append({"role": "user", "content": rng.choice(words)})
        req = {"messages": msgs, "add_generation_prompt": True}
        if any("tool_calls" in m for m in msgs) or rng.random() < 0.2:
            req["tools"] = [tool]
        out.append(req)
    return out


@pytest.fixture(scope="session")
def requests() -> list[dict]:
    return make_requests(60)
