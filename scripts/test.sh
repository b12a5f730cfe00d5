#!/usr/bin/env bash
# Installs dependencies, builds, checks formatting and runs every test: the Release suite,
# then the same suite under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
bash scripts/setup.sh
bash scripts/check-format.sh

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
  -DOCML_BUILD_TESTS=ON -DOCML_BUILD_BENCHMARKS=ON -DOCML_BUILD_CLI=ON
cmake --build build -j"$jobs"
ctest --test-dir build -j"$jobs" --output-on-failure

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DOCML_ASAN=ON -DOCML_UBSAN=ON \
  -DOCML_BUILD_TESTS=ON -DOCML_BUILD_BENCHMARKS=OFF -DOCML_BUILD_CLI=ON
cmake --build build-asan -j"$jobs"
# (the consumer tests build plain, unsanitized programs: run once, above)
ctest --test-dir build-asan -j"$jobs" --output-on-failure -E "^consumer_"
