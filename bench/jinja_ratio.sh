#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Paired timing of `ocml render -d DIALECT --jsonl` against Jinja2 rendering the same corpus
# with the dialect's template: the two run alternately, so a slow phase of a shared machine
# hits both, and the ratio of each pair is reported (median, min, max).
# Usage: [OCML_DIALECT=qwen3] bench/jinja_ratio.sh BUILD_DIR CORPUS.jsonl [PAIRS] [OCML_ARGS...]
# (chatml and the Qwen2.5 template by default; qwen3 takes Qwen3's template.)
set -euo pipefail
build=${1:?build dir}
corpus=${2:?corpus}
pairs=${3:-15}
shift 3 || true
here=$(cd "$(dirname "$0")/.." && pwd)
dialect=${OCML_DIALECT:-chatml}
case $dialect in
  qwen3) default_template=qwen3.jinja ;;
  *) default_template=qwen25.jinja ;;
esac
template=${OCML_TEMPLATE:-$here/../shared/reference/templates/$default_template}
python=${PYTHON:-/usr/bin/python3}
now() { date +%s%N; }
ratios=()
for ((i = 0; i < pairs; i++)); do
  t0=$(now)
  "$build/ocml" render -d "$dialect" --jsonl "$@" "$corpus" >/dev/null 2>/dev/null
  t1=$(now)
  "$python" "$here/tests/tools/render_jinja.py" "$template" "$corpus" /dev/null
  t2=$(now)
  o=$(((t1 - t0) / 1000))
  j=$(((t2 - t1) / 1000))
  ratios+=("$(awk -v o="$o" -v j="$j" 'BEGIN { printf "%.2f", j / o }')")
  printf 'pair %2d: ocml %7.1f ms  jinja2 %7.1f ms  ratio %s\n' "$i" "$(awk -v o="$o" 'BEGIN{print o/1000}')" \
    "$(awk -v j="$j" 'BEGIN{print j/1000}')" "${ratios[-1]}"
done
printf '%s\n' "${ratios[@]}" | sort -g | awk '{ a[NR] = $1 } END {
  m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
  printf "ratio over %d pairs: median %.2f, min %.2f, max %.2f\n", NR, m, a[1], a[NR] }'
