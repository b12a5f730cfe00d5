# SPDX-License-Identifier: Apache-2.0
"""A dataset too big for one machine, rendered to token IDs and training labels with Dask:
each shard of a JSONL corpus (one OpenAI request per line) is one partition of a dask.bag,
rendered on the workers through the ocml package; the output has one line per input line,
`{"input_ids": [...], "attention_mask": [...], "labels": [...]}` as `ocml render --ids
--training --jsonl` writes it, or `{"line": N, "error": {...}}` for a line that failed.

    python3 examples/python/dask_render.py SCHEDULER_OR_local FORMAT TOKENIZER OUT_DIR SHARD...

On one machine, "local" starts a LocalCluster of worker processes. On a cluster, pass the
scheduler's address (tcp://host:8786); docs/python.md says how the workers get the package
and the tokenizer files.
"""

from __future__ import annotations

import json
import os
import sys

import dask.bag as db

import ocml


def render_shard(lines: list[str], fmt: str, tokenizer: str) -> list[str]:
    """One partition: its lines rendered on every core of the worker, in order."""
    out = ocml.render_ids_batch(lines, tokenizer, format=fmt, training=True, errors="return")
    rows = []
    for number, item in enumerate(out, 1):
        if isinstance(item, ocml.Error):
            rows.append(json.dumps({"line": number, "error": {
                "code": item.code, "message": item.message, "line": item.line,
                "column": item.column}}, separators=(",", ":"), ensure_ascii=False))
        else:
            rows.append(json.dumps({k: item[k].tolist() for k in
                                    ("input_ids", "attention_mask", "labels")},
                                   separators=(",", ":")))
    return rows


def render_corpus(client, shards: list[str], fmt: str, tokenizer: str, out_dir: str) -> list[str]:
    """Renders every shard (one partition each) and writes OUT_DIR/<shard name>.ids.jsonl."""
    del client  # the bag computes on the client's cluster (dask's default scheduler once made)
    bag = db.read_text(shards, files_per_partition=1, include_path=False)
    bag = bag.map(lambda line: line.rstrip("\n")).filter(bool)
    rendered = bag.map_partitions(render_shard, fmt, tokenizer)
    os.makedirs(out_dir, exist_ok=True)
    names = [os.path.join(out_dir, os.path.basename(s) + ".ids.jsonl") for s in shards]
    rendered.to_textfiles(names, last_endline=True)  # one row a line, each ending in "\n"
    return names


def main() -> None:
    from dask.distributed import Client, LocalCluster

    where, fmt, tokenizer, out_dir, *shards = sys.argv[1:]
    if where == "local":
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True)
        client = Client(cluster)
    else:
        client = Client(where)
    for name in render_corpus(client, shards, fmt, tokenizer, out_dir):
        print(name)
    client.close()


if __name__ == "__main__":
    main()
