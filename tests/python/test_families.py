# SPDX-License-Identifier: Apache-2.0
"""The family scoreboard (tests/tools/check_families.py) as a floor: the curated response
templates of data/response_templates/ load, and together parse at least as many of the real
output shapes of tests/families/ as they did when they were written (96 of 219, session 15).
Issue 26 raises the floor as it adds templates and executor extensions."""

from __future__ import annotations

import collections
import importlib.util

import pytest

import ocml
from conftest import SOURCE

TEMPLATES = SOURCE.parent / "shared" / "reference" / "templates" / "models"
CURATED = sorted((SOURCE / "data" / "response_templates").glob("*.json"))


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


def test_the_curated_templates_parse_the_families_real_outputs():
    if not TEMPLATES.is_dir():
        pytest.skip(f"{TEMPLATES} is absent (the shared reference templates)")
    scores = scoreboard().score({p.stem: str(p) for p in CURATED}, TEMPLATES)
    total = collections.Counter()
    for counts in scores.values():
        total.update(counts)
    assert total["cases"] == 219
    assert total["passed"] >= 96, dict(total)
    # Every family with a curated template parses most of its complete cases.
    for family, counts in scores.items():
        if counts["refused"] < counts["cases"]:
            assert counts["passed"] >= counts["cases"] // 2, (family, dict(counts))
