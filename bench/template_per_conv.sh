#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Chat templates per conversation, start-up excluded: for each template, `ocml render
# --template T --jsonl` and Python Jinja2 (tests/tools/render_template.py, set up as
# transformers sets it up) each render a small and a large seeded corpus, alternating, RUNS
# times; per conversation = (best large - best small) / (LARGE - SMALL) on each side. Prints
# the ratio per template and the geometric mean. The corpus is the seeded one of the
# differential test (tests/tools/make_template_corpus.py: edge cases, about a third of its
# lines raise in a given template), or with CORPUS=agent the realistic agent conversations
# of tests/tools/make_agent_corpus.py (tools, parallel calls, reasoning).
# With BASE=OTHER_BUILD_DIR, that build's ocml runs in the same rounds too (before/after).
#   [CORPUS=agent] [BASE=DIR] bench/template_per_conv.sh BUILD_DIR SMALL LARGE RUNS TEMPLATE...
set -euo pipefail
build=$1 small=$2 large=$3 runs=$4
shift 4
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ ${CORPUS:-} == agent ]]; then
  python3 "$here/tests/tools/make_agent_corpus.py" "$large" 27 >"$work/large.jsonl"
else
  python3 "$here/tests/tools/make_template_corpus.py" "$large" 7 >"$work/large.jsonl"
fi
head -n "$small" "$work/large.jsonl" >"$work/small.jsonl"
kwargs='{"bos_token": "<s>", "eos_token": "</s>"}'
export OCML_TEMPLATE_NOW=2026-01-15T10:30:00
ns() { # wall time in ns of "$@"
  local s e
  s=$(date +%s%N)
  "$@" >/dev/null 2>&1 || true
  e=$(date +%s%N)
  echo $((e - s))
}
min() { [[ -z $1 || $2 -lt $1 ]] && echo "$2" || echo "$1"; }
echo "corpus: $small and $large conversations of $(wc -c <"$work/large.jsonl") bytes"
base=${BASE:-}
logsum=0 baselog=0 n=0
for t in "$@"; do
  js="" jl="" os="" ol="" bs="" bl=""
  for _ in $(seq "$runs"); do
    for size in small large; do
      j=$(ns python3 "$here/tests/tools/render_template.py" "$t" "$work/$size.jsonl" "$work/out.jsonl" --template-kwargs "$kwargs")
      o=$(ns "$build/ocml" render --template "$t" --jsonl --template-kwargs "$kwargs" "$work/$size.jsonl")
      b=0
      [[ -n $base ]] && b=$(ns "$base/ocml" render --template "$t" --jsonl --template-kwargs "$kwargs" "$work/$size.jsonl")
      if [[ $size == small ]]; then
        js=$(min "$js" "$j") os=$(min "$os" "$o") bs=$(min "$bs" "$b")
      else
        jl=$(min "$jl" "$j") ol=$(min "$ol" "$o") bl=$(min "$bl" "$b")
      fi
    done
  done
  read -r ju ou bu ratio bratio < <(awk -v js="$js" -v jl="$jl" -v os="$os" -v ol="$ol" -v bs="$bs" -v bl="$bl" -v d=$((large - small)) \
    'BEGIN{j=(jl-js)/d/1000; o=(ol-os)/d/1000; b=(bl-bs)/d/1000; if (o<=0) o=0.001; if (b<=0) b=0.001;
           printf "%.1f %.1f %.1f %.2f %.2f\n", j, o, b, j/o, j/b}')
  if [[ -n $base ]]; then
    printf '%-45s ocml %6s us  base %6s us  jinja2 %7s us  %6sx (base %sx)\n' "$(basename "$t" .jinja)" "$ou" "$bu" "$ju" "$ratio" "$bratio"
  else
    printf '%-50s ocml %7s us  jinja2 %8s us  %6sx\n' "$(basename "$t" .jinja)" "$ou" "$ju" "$ratio"
  fi
  logsum=$(awk -v s="$logsum" -v r="$ratio" 'BEGIN{print s + log(r)}')
  baselog=$(awk -v s="$baselog" -v r="$bratio" 'BEGIN{print s + log(r)}')
  n=$((n + 1))
done
awk -v s="$logsum" -v n="$n" 'BEGIN{printf "geometric mean over %d templates: %.2fx per conversation\n", n, exp(s/n)}'
[[ -n $base ]] && awk -v s="$baselog" -v n="$n" 'BEGIN{printf "base build: %.2fx per conversation\n", exp(s/n)}'
true
