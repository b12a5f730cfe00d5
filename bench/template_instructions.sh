#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Instructions per conversation of `ocml render --template T --jsonl`, counted by callgrind
# (deterministic where wall times swing): (whole process on LARGE agent conversations − on
# SMALL) / (LARGE − SMALL), so start-up and template compilation cancel out. With a second
# build directory, both builds side by side (before/after).
#   bench/template_instructions.sh SMALL LARGE BUILD [BASE_BUILD] -- TEMPLATE...
set -euo pipefail
small=$1 large=$2 build=$3
shift 3
base=""
if [[ $1 != "--" ]]; then
  base=$1
  shift
fi
shift  # --
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/tests/tools/make_agent_corpus.py" "$large" 27 >"$work/large.jsonl"
head -n "$small" "$work/large.jsonl" >"$work/small.jsonl"
export OCML_TEMPLATE_NOW=2026-01-15T10:30:00
ir() { # instructions of `ocml render` with build $1, template $2, corpus $3
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1/ocml" render --template "$2" \
    --jsonl --template-kwargs '{"bos_token": "<s>", "eos_token": "</s>"}' "$3" 2>&1 >/dev/null |
    awk '/refs:/ {gsub(",", "", $4); print $4}'
}
per_conv() { # instructions per conversation of build $1 with template $2
  local s l
  s=$(ir "$1" "$2" "$work/small.jsonl")
  l=$(ir "$1" "$2" "$work/large.jsonl")
  echo $(((l - s) / (large - small)))
}
for t in "$@"; do
  now=$(per_conv "$build" "$t")
  if [[ -n $base ]]; then
    was=$(per_conv "$base" "$t")
    awk -v t="$(basename "$t" .jinja)" -v b="$was" -v n="$now" \
      'BEGIN {printf "%-45s base %9d  now %9d  %.2fx fewer\n", t, b, n, b / n}'
  else
    printf '%-45s %9d\n' "$(basename "$t" .jinja)" "$now"
  fi
done
