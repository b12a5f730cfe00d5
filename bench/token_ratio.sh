#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Encode speed against tiktoken-rs, alternating: in each of ROUNDS rounds, ocml
# (bench/ocml_token_speed, o200k_base) and tiktoken-rs through its Node binding
# (bench/token_speed.mjs) encode the same text one after the other; each round's ratios
# are ocml's first run (its piece cache empty at the start) and its best of 3 over
# tiktoken-rs's best of 3. Prints every round, then the median and range of each ratio.
#   bench/token_ratio.sh BUILD_DIR CORPUS [ROUNDS]
# CORPUS: real multilingual text (bench/make_real_text.py writes it from the system's
# gettext catalogs) or any UTF-8 text.
set -euo pipefail
build=$1 corpus=$2 rounds=${3:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
ref=$here/tests/reference
stats() { sort -g | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "median %.2fx [%.2f-%.2f]\n", m, v[1], v[NR]}'; }
echo "corpus: $(wc -c <"$corpus") bytes, $rounds rounds"
first="" best=""
for r in $(seq "$rounds"); do
  o=$("$build/bench/ocml_token_speed" "$ref/o200k_base.tiktoken" o200k_base "$corpus")
  p=$(node "$here/bench/token_speed.mjs" "$corpus")
  of=$(awk '$1 == "encode_first_run_MBps" {print $2}' <<<"$o")
  ob=$(awk '$1 == "encode_MBps" {print $2}' <<<"$o")
  pt=$(awk '$1 == "tiktoken-rs" && $2 == "encode_MBps" {print $3}' <<<"$p")
  rf=$(awk -v a="$of" -v b="$pt" 'BEGIN{printf "%.2f", a/b}')
  rb=$(awk -v a="$ob" -v b="$pt" 'BEGIN{printf "%.2f", a/b}')
  printf 'round %d: ocml first run %s MB/s, best %s MB/s; tiktoken-rs %s MB/s: %sx, %sx\n' "$r" "$of" "$ob" "$pt" "$rf" "$rb"
  first+="$rf"$'\n' best+="$rb"$'\n'
done
echo "ocml first run / tiktoken-rs: $(printf '%s' "$first" | stats)"
echo "ocml best of 3 / tiktoken-rs: $(printf '%s' "$best" | stats)"
