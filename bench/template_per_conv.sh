#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Chat templates per conversation, start-up excluded: for each template, `ocml render
# --template T --jsonl` and Python Jinja2 (tests/tools/render_template.py, set up as
# transformers sets it up) each render a small and a large corpus, alternating, in each of
# RUNS rounds; a round's per conversation = (large - small) / (LARGE - SMALL) on each side,
# and its ratio Jinja2 / ocml. Prints each template's figures from the best time of each
# run over the rounds (noise only adds time), the rounds' own ratios (median [min-max]: the
# spread), and the geometric mean of the best-of ratios. The corpus is the seeded one of the
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
echo "corpus: $small and $large conversations of $(wc -c <"$work/large.jsonl") bytes"
base=${BASE:-}
# Median and range of a list of numbers (one per line): "MEDIAN MIN MAX".
stats() { sort -g | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.2f %.2f %.2f\n", m, v[1], v[NR]}'; }
d=$((large - small))
logsum=0 baselog=0 n=0
for t in "$@"; do
  ratios="" mins=""
  for _ in $(seq "$runs"); do
    # One round: each side renders the small and the large corpus, alternating.
    js=$(ns python3 "$here/tests/tools/render_template.py" "$t" "$work/small.jsonl" "$work/out.jsonl" --template-kwargs "$kwargs")
    os=$(ns "$build/ocml" render --template "$t" --jsonl --template-kwargs "$kwargs" "$work/small.jsonl")
    bs=0 bl=0
    [[ -n $base ]] && bs=$(ns "$base/ocml" render --template "$t" --jsonl --template-kwargs "$kwargs" "$work/small.jsonl")
    jl=$(ns python3 "$here/tests/tools/render_template.py" "$t" "$work/large.jsonl" "$work/out.jsonl" --template-kwargs "$kwargs")
    ol=$(ns "$build/ocml" render --template "$t" --jsonl --template-kwargs "$kwargs" "$work/large.jsonl")
    [[ -n $base ]] && bl=$(ns "$base/ocml" render --template "$t" --jsonl --template-kwargs "$kwargs" "$work/large.jsonl")
    r=$(awk -v js="$js" -v jl="$jl" -v os="$os" -v ol="$ol" \
      'BEGIN{o=ol-os; if (o<=0) o=1; printf "%.3f\n", (jl-js)/o}')
    ratios+="$r"$'\n'
    mins+="$js $jl $os $ol $bs $bl"$'\n'
  done
  # The best of each run over the rounds (noise only ever adds time): the headline figures.
  read -r ju ou bu ratio bratio < <(printf '%s' "$mins" | awk -v d="$d" '
    NR == 1 {for (i = 1; i <= 6; i++) m[i] = $i}
    {for (i = 1; i <= 6; i++) if ($i < m[i]) m[i] = $i}
    END {j=(m[2]-m[1])/d/1000; o=(m[4]-m[3])/d/1000; b=(m[6]-m[5])/d/1000;
         if (o<=0) o=0.001; if (b<=0) b=0.001; printf "%.1f %.1f %.1f %.2f %.2f\n", j, o, b, j/o, j/b}')
  read -r rmed rmin rmax < <(printf '%s' "$ratios" | stats)
  if [[ -n $base ]]; then
    printf '%-45s ocml %6s us  base %6s us  jinja2 %7s us  %6sx (base %sx)  rounds: median %sx [%s-%s]\n' "$(basename "$t" .jinja)" "$ou" "$bu" "$ju" "$ratio" "$bratio" "$rmed" "$rmin" "$rmax"
  else
    printf '%-45s ocml %6s us  jinja2 %7s us  %6sx  rounds: median %sx [%s-%s]\n' "$(basename "$t" .jinja)" "$ou" "$ju" "$ratio" "$rmed" "$rmin" "$rmax"
  fi
  logsum=$(awk -v s="$logsum" -v r="$ratio" 'BEGIN{print s + log(r)}')
  baselog=$(awk -v s="$baselog" -v r="$bratio" 'BEGIN{print s + log(r)}')
  n=$((n + 1))
done
awk -v s="$logsum" -v n="$n" 'BEGIN{printf "geometric mean over %d templates: %.2fx per conversation\n", n, exp(s/n)}'
[[ -n $base ]] && awk -v s="$baselog" -v n="$n" 'BEGIN{printf "base build: %.2fx per conversation\n", exp(s/n)}'
true
