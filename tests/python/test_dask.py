# SPDX-License-Identifier: Apache-2.0
"""A sharded JSONL corpus rendered to IDs and labels with dask.bag on a LocalCluster of
worker processes (examples/python/dask_render.py) equals the single-process CLI output
byte for byte."""

from __future__ import annotations

import json
import os
import sys

import pytest

from conftest import SOURCE, make_requests, run_cli

dask = pytest.importorskip("dask", reason="python3-dask is not installed "
                           "(scripts/setup.sh --dev installs it)")
distributed = pytest.importorskip("distributed", reason="python3-distributed is not installed")

EXAMPLES = str(SOURCE / "examples" / "python")
sys.path.insert(0, EXAMPLES)
import dask_render  # noqa: E402


def test_dask_output_equals_the_cli_byte_for_byte(cli, byte_tokenizer_path, tmp_path):
    requests = make_requests(400, seed=11)
    # One line that fails, so the error lines are compared too.
    lines = [json.dumps(r, ensure_ascii=False) for r in requests]
    lines.insert(123, '{"messages": [{"role": "bot", "content": "x"}]}')
    shards = []
    for k in range(4):
        path = tmp_path / f"shard{k}.jsonl"
        path.write_text("".join(line + "\n" for line in lines[k::4]), encoding="utf-8")
        shards.append(str(path))

    # The worker processes import the example module (its functions travel by reference) and
    # ocml from the same places as this process.
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [EXAMPLES, *filter(None, [os.environ.get("PYTHONPATH")])])
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        assert len(client.scheduler_info()["workers"]) == 2
        outputs = dask_render.render_corpus(client, shards, "chatml", byte_tokenizer_path,
                                            str(tmp_path / "out"))
    finally:
        client.close()
        cluster.close()

    errors = 0
    for shard, out in zip(shards, outputs):
        proc = run_cli(cli, ["render", "-d", "chatml", "--ids", "--training", "--tokenizer",
                             byte_tokenizer_path, "--jsonl", shard])
        got = open(out, "rb").read()
        assert got == proc.stdout, shard
        errors += got.count(b'"error"')
    assert errors == 1
