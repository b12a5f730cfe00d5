#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Chat templates: `ocml render --template T --jsonl` against Python Jinja2 doing the same
# JSONL-in, JSON-out work (tests/tools/render_template.py, set up as transformers sets it up),
# on one seeded corpus, for every template given; best of N runs each, and the geometric mean
# of the ratios.
#   bench/template_ratio.sh BUILD_DIR LINES RUNS TEMPLATE...
set -euo pipefail
build=$1 lines=$2 runs=$3
shift 3
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/tests/tools/make_template_corpus.py" "$lines" 7 >"$work/corpus.jsonl"
kwargs='{"bos_token": "<s>", "eos_token": "</s>"}'
export OCML_TEMPLATE_NOW=2026-01-15T10:30:00
best() {  # best wall time in ms of running "$@" $runs times
  local b=""
  for _ in $(seq "$runs"); do
    local s e
    s=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    e=$(date +%s%N)
    local ms=$(((e - s) / 1000000))
    [[ -z $b || $ms -lt $b ]] && b=$ms
  done
  echo "$b"
}
echo "corpus: $lines conversations, $(wc -c <"$work/corpus.jsonl") bytes"
logsum=0 n=0
for t in "$@"; do
  j=$(best python3 "$here/tests/tools/render_template.py" "$t" "$work/corpus.jsonl" "$work/out.jsonl" --template-kwargs "$kwargs")
  o=$(best "$build/ocml" render --template "$t" --jsonl --template-kwargs "$kwargs" "$work/corpus.jsonl")
  ratio=$(awk -v j="$j" -v o="$o" 'BEGIN{printf "%.2f", j/(o>0?o:1)}')
  printf '%-50s ocml %6d ms  jinja2 %7d ms  %6sx\n' "$(basename "$t" .jinja)" "$o" "$j" "$ratio"
  logsum=$(awk -v s="$logsum" -v r="$ratio" 'BEGIN{print s + log(r)}')
  n=$((n + 1))
done
awk -v s="$logsum" -v n="$n" 'BEGIN{printf "geometric mean over %d templates: %.2fx\n", n, exp(s/n)}'
