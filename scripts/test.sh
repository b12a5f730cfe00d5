#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs dependencies, builds, checks formatting and runs every test:
#   1. a plain g++ tree: the end-to-end tests (the CLI, golden and chat runs, the consumer
#      builds, the corpus replay under valgrind, the C API, the Python package's pytest
#      suite and its pip install), all through the g++-built library,
#   2. clang-tidy,
#   3. one clang build under AddressSanitizer + UndefinedBehaviorSanitizer that runs the
#      GoogleTest suite (unit, property, conformance, reference) and the end-to-end tests
#      again, every fuzz target's seed-corpus replay, and then every libFuzzer target for a
#      fixed number of executions from a fixed seed (reproducible). One sanitizer build
#      serves both; the GoogleTest suite is built once, there (docs/decisions.md 88).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# Each stage's wall time, so the CI budget (30 min) can be read from the log.
start=$SECONDS last=$SECONDS
stage() {
  echo "== stage: $1 took $((SECONDS - last)) s (total $((SECONDS - start)) s)"
  last=$SECONDS
}
bash scripts/setup.sh --dev
bash scripts/check-format.sh
bash scripts/check-license.sh
python3 scripts/check-layers.py
stage "setup and checks"

# The seed corpora are replayed in the sanitizer tree (stronger: under ASan and UBSan), so
# this tree builds only the stream replay, which valgrind runs (docs/decisions.md 83).
# -O1: the tests check behaviour, which the optimization level does not change, and -O1
# compiles 15-30% faster than -O2 (docs/decisions.md 88); the figures of docs/BENCHMARKS.md
# come from the default Release flags (-O3).
# Unity builds (16 sources a unit): the shared headers are compiled a sixteenth as often,
# about 2.5x faster on 2 cores (docs/decisions.md 97); clang-tidy still reads every file
# on its own, so a file that only compiles beside another is caught there.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
  -DOCML_BUILD_TESTS=ON -DOCML_UNIT_TESTS=OFF -DOCML_BUILD_BENCHMARKS=OFF -DOCML_BUILD_CLI=ON \
  -DOCML_FUZZ_REPLAYS=OFF -DOCML_BUILD_PYTHON=ON
cmake --build build -j"$jobs"
stage "release build"
ctest --test-dir build -j"$jobs" --output-on-failure
stage "release tests"

OCML_TIDY_ANALYZER=${OCML_TIDY_ANALYZER:-0} bash scripts/tidy.sh
stage "clang-tidy"

# The sanitizer build (clang): tests and fuzzers from one tree.
OCML_FUZZ_WITH_TESTS=ON bash scripts/fuzz.sh --configure-only
cmake --build build-fuzz -j"$jobs"
stage "sanitizer build"
# (the consumer tests build plain, unsanitized programs: run once, above)
ctest --test-dir build-fuzz -j"$jobs" --output-on-failure -E "^consumer_"
stage "sanitizer tests"

OCML_FUZZ_RUNS=${OCML_FUZZ_RUNS:-5000} bash scripts/fuzz.sh
stage "fuzzing"
