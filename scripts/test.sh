#!/usr/bin/env bash
# Installs dependencies, builds, checks formatting and runs every test:
#   1. the Release suite (unit, property, conformance, golden, consumer, fuzz-corpus replays),
#   2. clang-tidy, 3. the corpus replay under valgrind,
#   4. the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer,
#   5. all 12 libFuzzer targets under ASan + UBSan for a fixed number of executions from a
#      fixed seed (reproducible).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
bash scripts/setup.sh
bash scripts/check-format.sh

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
  -DOCML_BUILD_TESTS=ON -DOCML_BUILD_BENCHMARKS=ON -DOCML_BUILD_CLI=ON
cmake --build build -j"$jobs"
ctest --test-dir build -j"$jobs" --output-on-failure

bash scripts/tidy.sh
bash scripts/valgrind.sh

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DOCML_ASAN=ON -DOCML_UBSAN=ON \
  -DOCML_BUILD_TESTS=ON -DOCML_BUILD_BENCHMARKS=OFF -DOCML_BUILD_CLI=ON
cmake --build build-asan -j"$jobs"
# (the consumer tests build plain, unsanitized programs: run once, above)
ctest --test-dir build-asan -j"$jobs" --output-on-failure -E "^consumer_"

OCML_FUZZ_RUNS=${OCML_FUZZ_RUNS:-20000} \
OCML_FUZZ_TARGETS="parse_ocml_2_2 parse_ocml_2_0 parse_harmony parse_chatml parse_pcml parse_gabgpt parse_ocml_0_1 stream roundtrip json convert yaml" \
  bash scripts/fuzz.sh
