# SPDX-License-Identifier: Apache-2.0
"""Training data from chat conversations, in the shape of a Hugging Face `datasets.map`:
each batch of conversations becomes input_ids and labels (-100 outside the assistant's
sampled turns), rendered on every core by ocml.

    python3 examples/python/datasets_map.py conversations.jsonl tokenizer.json qwen3

With `datasets` installed, the same function is the map:

    ds = datasets.load_dataset("json", data_files="conversations.jsonl")["train"]
    ds = ds.map(lambda b: to_ids(b, tok, "qwen3"), batched=True, batch_size=1024)
"""

from __future__ import annotations

import json
import sys

import ocml


def to_ids(batch: dict, tokenizer: ocml.Tokenizer, fmt: str, max_tokens: int = 4096) -> dict:
    """A `batched=True` map function: {"messages": [...]} columns to IDs and labels."""
    requests = [{"messages": m, "tools": t} if t else {"messages": m}
                for m, t in zip(batch["messages"], batch.get("tools") or [None] * len(batch["messages"]))]
    out = ocml.render_ids_batch(requests, tokenizer, format=fmt, training=True,
                                max_tokens=max_tokens, errors="return")
    ids, labels = [], []
    for item in out:
        if isinstance(item, ocml.Error):  # a broken conversation: an empty row, reported
            print(f"skipped: {item}", file=sys.stderr)
            ids.append([])
            labels.append([])
        else:
            ids.append(item["input_ids"].tolist())
            labels.append(item["labels"].tolist())
    return {"input_ids": ids, "labels": labels}


def main() -> None:
    path, tokenizer_path, fmt = sys.argv[1], sys.argv[2], sys.argv[3]
    tok = ocml.Tokenizer.from_file(tokenizer_path)
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    batch = {"messages": [r["messages"] for r in rows], "tools": [r.get("tools") for r in rows]}
    out = to_ids(batch, tok, fmt)
    for ids, labels in zip(out["input_ids"], out["labels"]):
        print(json.dumps({"input_ids": ids, "labels": labels}))


if __name__ == "__main__":
    main()
