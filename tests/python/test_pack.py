# SPDX-License-Identifier: Apache-2.0
"""`ocml pack`: training examples packed into rows, read back with NumPy from every output
layout (JSONL, .npy, Megatron's .bin/.idx) and checked against the examples themselves."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import SOURCE

np = pytest.importorskip("numpy", reason="python3-numpy reads the packed files back")

SEQ_LEN = 4096


@pytest.fixture(scope="module")
def examples(cli, byte_tokenizer_path, tmp_path_factory):
    """Training examples of 120 agent conversations, as render writes them."""
    d = tmp_path_factory.mktemp("pack")
    corpus = subprocess.run([sys.executable, str(SOURCE / "tests" / "tools" /
                                                 "make_agent_corpus.py"), "120", "5"],
                            capture_output=True, text=True, check=True).stdout
    r = subprocess.run([cli, "render", "-d", "qwen3", "--jsonl", "--ids", "--training",
                        "--tokenizer", byte_tokenizer_path, "--max-tokens", str(SEQ_LEN), "--progress",
                        "-"],
                       input=corpus, capture_output=True, text=True)
    path = d / "examples.jsonl"
    path.write_text(r.stdout, encoding="utf-8")
    xs = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(xs) > 120, r.stderr
    # The closing count is of the examples written (a refused line gives none).
    assert f"examples: {len(xs)}," in r.stderr, r.stderr
    # --progress: the line even though stderr is a pipe, ending on the whole input.
    assert "progress: 120 lines, " in r.stderr and " MB/s, " in r.stderr, r.stderr
    return path, xs


def _pack(cli, path, *args):
    r = subprocess.run([cli, "pack", "--seq-len", str(SEQ_LEN), *args, str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "rows: " in r.stderr and "filled: " in r.stderr, r.stderr
    return r


def _same_examples(got, xs):
    """`got` (a list of (ids, labels) pairs) holds every example exactly once."""
    want = sorted((tuple(x["input_ids"]), tuple(x["labels"])) for x in xs)
    assert sorted((tuple(i), tuple(l)) for i, l in got) == want


def test_jsonl_rows_hold_every_example_with_its_boundaries(cli, examples):
    path, xs = examples
    rows = [json.loads(line) for line in _pack(cli, path).stdout.splitlines()]
    got = []
    for row in rows:
        cu = row["cu_seqlens"]
        assert cu[0] == 0 and cu[-1] == len(row["input_ids"]) <= SEQ_LEN
        assert len(row["labels"]) == len(row["position_ids"]) == len(row["input_ids"])
        for a, b in zip(cu, cu[1:]):
            assert row["position_ids"][a:b] == list(range(b - a))
            got.append((row["input_ids"][a:b], row["labels"][a:b]))
        assert len(row["lines"]) == len(cu) - 1
    _same_examples(got, xs)
    # First-fit decreasing leaves little room: fewer rows than half as many as examples.
    assert len(rows) < len(xs) / 2


def test_npy_arrays_read_back_with_numpy(cli, examples, tmp_path):
    path, xs = examples
    _pack(cli, path, "--format", "npy", "--pad-id", "7", "-o", str(tmp_path / "t"))
    ids = np.load(tmp_path / "t.input_ids.npy")
    labels = np.load(tmp_path / "t.labels.npy")
    pos = np.load(tmp_path / "t.position_ids.npy")
    lens = np.load(tmp_path / "t.example_lens.npy")
    assert ids.dtype == labels.dtype == pos.dtype == lens.dtype == np.int32
    assert ids.shape == labels.shape == pos.shape and ids.shape[1] == SEQ_LEN
    assert lens.shape[0] == ids.shape[0]
    got = []
    for r in range(ids.shape[0]):
        cu = np.concatenate([[0], np.cumsum(lens[r][lens[r] > 0])])
        for a, b in zip(cu, cu[1:]):
            assert pos[r, a:b].tolist() == list(range(b - a))
            got.append((ids[r, a:b].tolist(), labels[r, a:b].tolist()))
        end = cu[-1]
        assert (ids[r, end:] == 7).all() and (labels[r, end:] == -100).all()
        assert (pos[r, end:] == 0).all()
    _same_examples(got, xs)


def _read_megatron(prefix):
    """The sequences and documents of a Megatron indexed dataset, parsed with NumPy."""
    idx = (prefix.parent / (prefix.name + ".idx")).read_bytes()
    assert idx[:9] == b"MMIDIDX\x00\x00"
    version, = np.frombuffer(idx, np.uint64, 1, 9)
    dtype_code = idx[17]
    seqs, docs = np.frombuffer(idx, np.uint64, 2, 18)
    assert version == 1 and dtype_code == 4  # int32
    at = 34
    sizes = np.frombuffer(idx, np.int32, int(seqs), at)
    at += 4 * int(seqs)
    pointers = np.frombuffer(idx, np.int64, int(seqs), at)
    at += 8 * int(seqs)
    doc_idx = np.frombuffer(idx, np.int64, int(docs), at)
    assert at + 8 * int(docs) == len(idx)
    data = np.fromfile(prefix.parent / (prefix.name + ".bin"), np.int32)
    out = [data[p // 4:p // 4 + n].tolist() for p, n in zip(pointers, sizes)]
    return out, doc_idx


def test_megatron_index_reads_back_with_numpy(cli, examples, tmp_path):
    path, xs = examples
    _pack(cli, path, "--format", "megatron", "-o", str(tmp_path / "m"))
    ids, docs = _read_megatron(tmp_path / "m")
    labels, label_docs = _read_megatron(tmp_path / "m.labels")
    assert docs.tolist() == label_docs.tolist()
    assert docs[0] == 0 and docs[-1] == len(ids)
    for a, b in zip(docs, docs[1:]):  # a document is a packed row
        assert 0 < sum(len(s) for s in ids[a:b]) <= SEQ_LEN
    _same_examples(list(zip(ids, labels)), xs)


def test_bad_lines_are_counted_and_the_rest_packed(cli, tmp_path):
    lines = [json.dumps({"input_ids": [1, 2, 3], "labels": [-100, 2, 3]}),
             "not json",
             json.dumps({"line": 3, "error": {"code": "E-JSON-INPUT"}}),
             json.dumps({"input_ids": list(range(SEQ_LEN + 1))}),
             json.dumps({"input_ids": [1, -5]}),
             json.dumps({"input_ids": [4, 5]}),
             json.dumps({"input_ids": []})]
    p = tmp_path / "in.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = subprocess.run([cli, "pack", "--seq-len", str(SEQ_LEN), str(p)],
                       capture_output=True, text=True)
    assert r.returncode == 1
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(rows) == 1 and rows[0]["input_ids"] == [1, 2, 3, 4, 5]
    assert rows[0]["labels"] == [-100, 2, 3, -100, -100] and rows[0]["lines"] == [1, 6]
    for n, code in ((2, "E-JSON-INPUT"), (3, "E-JSON-INPUT"), (4, "E-LIMIT-EXCEEDED"),
                    (5, "E-JSON-INPUT"), (7, "E-JSON-INPUT")):
        assert f"line {n}: {code}" in r.stderr, r.stderr
    assert "lines: 7, failed: 5" in r.stderr
