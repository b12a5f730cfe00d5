# SPDX-License-Identifier: Apache-2.0
"""The Python package against the C++ CLI on the same inputs, and one Python thread against
two (the GIL is released in every call). Prints one table for docs/BENCHMARKS.md.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py build/ocml \
        /tmp/convs.jsonl TOKENIZER_JSON [REPEATS]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import ocml


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def cli(args: list[str], path: str) -> None:
    with open(os.devnull, "wb") as null:
        subprocess.run([*args, path], stdout=null, stderr=subprocess.DEVNULL, check=False)


def main() -> None:
    exe, corpus, tok_path = sys.argv[1], sys.argv[2], sys.argv[3]
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    lines = [line.rstrip("\n") for line in open(corpus, encoding="utf-8") if line.strip()]
    mb = os.path.getsize(corpus) / 1e6
    tok = ocml.Tokenizer.from_file(tok_path)
    rows = []

    def row(job: str, py: float, c: float) -> None:
        rows.append((job, py, c))

    for fmt in ("chatml", "qwen3", "harmony"):
        py = best(lambda: ocml.render_batch(lines, format=fmt, jobs=1, errors="return"), repeats)
        c = best(lambda: cli([exe, "render", "-q", "-d", fmt, "--jsonl", "-j", "1"], corpus),
                 repeats)
        row(f"render {fmt}, JSON text items", py, c)
    # The lines as bytes (a JSONL file read in binary, as the CLI reads it): no UTF-8
    # encoding of each str on the way in.
    raw = [line.rstrip(b"\n") for line in open(corpus, "rb") if line.strip()]
    py = best(lambda: ocml.render_batch(raw, format="chatml", jobs=1, errors="return"), repeats)
    row("render chatml, JSONL bytes items", py,
        best(lambda: cli([exe, "render", "-q", "-d", "chatml", "--jsonl", "-j", "1"], corpus),
             repeats))
    dicts = [json.loads(line) for line in lines]
    py = best(lambda: ocml.render_batch(dicts, format="chatml", jobs=1, errors="return"), repeats)
    row("render chatml, dict items (json.dumps in Python)", py,
        best(lambda: cli([exe, "render", "-q", "-d", "chatml", "--jsonl", "-j", "1"], corpus),
             repeats))
    py = best(lambda: ocml.render_ids_batch(lines, tok, format="qwen3", training=True, jobs=1,
                                            errors="return"), repeats)
    c = best(lambda: cli([exe, "render", "-q", "-d", "qwen3", "--ids", "--training",
                          "--tokenizer", tok_path, "--jsonl", "-j", "1"], corpus), repeats)
    row("render_ids qwen3 --training", py, c)

    texts = ocml.render_batch(lines, format="qwen3", jobs=0, errors="return")
    texts = [t for t in texts if isinstance(t, str)]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for t in texts:
            f.write(json.dumps(t) + "\n")
        text_corpus = f.name
    py = best(lambda: ocml.parse_batch(texts, format="qwen3", jobs=1, errors="return"), repeats)
    c = best(lambda: cli([exe, "parse", "-q", "-d", "qwen3", "--openai", "--jsonl", "-j", "1"],
                         text_corpus), repeats)
    row("parse qwen3 --openai", py, c)
    os.unlink(text_corpus)

    print(f"corpus: {len(lines)} conversations, {mb:.1f} MB; best of {repeats}; one core each")
    print(f"{'job':52} {'Python s':>9} {'CLI s':>7} {'ratio':>6}")
    for job, py, c in rows:
        print(f"{job:52} {py:9.2f} {c:7.2f} {py / c:6.2f}")

    # Threads: the same items one call at a time, on one thread and split over two. A
    # render of a short conversation is a few microseconds, about Python's own cost per
    # call; render_ids (tokenizing too) does more work per call with the GIL released.
    items = lines[:8000]
    # Large inputs: 40 conversations' messages as one (about 60 KB each).
    big = []
    for k in range(0, 8000, 40):
        msgs = []
        for line in lines[k:k + 40]:
            msgs += json.loads(line)["messages"]
        big.append(json.dumps({"messages": msgs}))

    def run(call, n: int, items=items) -> None:
        def work(part: list) -> None:
            for item in part:
                try:
                    call(item)
                except ocml.Error:
                    pass
        ts = [threading.Thread(target=work, args=(items[k::n],)) for k in range(n)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    calls = (("render qwen3", lambda i: ocml.render(i, format="qwen3")),
             ("render_ids qwen3 --training",
              lambda i: ocml.render_ids(i, tok, format="qwen3", training=True)))
    for label, data in (("1.5 KB", items), ("60 KB", big)):
        for name, call in calls:
            one = best(lambda: run(call, 1, data), repeats)
            two = best(lambda: run(call, 2, data), repeats)
            print(f"{name} per call, {len(data)} items of {label}: one thread {one:.2f} s, "
                  f"two threads {two:.2f} s ({one / two:.2f}x)")
    b1 = best(lambda: ocml.render_batch(lines, format="qwen3", jobs=1, errors="return"), repeats)
    b2 = best(lambda: ocml.render_batch(lines, format="qwen3", jobs=2, errors="return"), repeats)
    print(f"render_batch qwen3: jobs=1 {b1:.2f} s, jobs=2 {b2:.2f} s ({b1 / b2:.2f}x)")


if __name__ == "__main__":
    main()
