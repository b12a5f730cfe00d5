#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Paired timing of `ocml render -d DIALECT --jsonl` on two corpora of the same conversations
# in different shapes (say, without and with reasoning, kwargs, content parts): the two run
# alternately, so a slow phase of a shared machine hits both, and the ratio of each pair
# (shaped / plain, per byte of input) is reported as median, min and max (issue 28: no shape
# more than 1.3x slower than the plainest).
# Usage: bench/shape_ratio.sh BUILD_DIR DIALECT PLAIN.jsonl SHAPED.jsonl [PAIRS]
set -euo pipefail
build=${1:?build dir}
dialect=${2:?dialect}
plain=${3:?plain corpus}
shaped=${4:?shaped corpus}
pairs=${5:-11}
now() { date +%s%N; }
run() { "$build/ocml" render -d "$dialect" --jsonl "$1" >/dev/null 2>/dev/null; }
bytes_plain=$(wc -c <"$plain")
bytes_shaped=$(wc -c <"$shaped")
ratios=()
for ((i = 0; i < pairs; i++)); do
  t0=$(now)
  run "$plain"
  t1=$(now)
  run "$shaped"
  t2=$(now)
  ratios+=("$(awk -v a=$((t1 - t0)) -v b=$((t2 - t1)) -v pa="$bytes_plain" -v pb="$bytes_shaped" \
    'BEGIN { printf "%.3f", (b / pb) / (a / pa) }')")
done
printf '%s\n' "${ratios[@]}" | sort -g | awk -v d="$dialect" -v s="$(basename "$shaped")" '
  { a[NR] = $1 } END {
  m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
  printf "%s %s: time per input byte vs the plain corpus over %d pairs: median %.2f, min %.2f, max %.2f\n", d, s, NR, m, a[1], a[NR] }'
