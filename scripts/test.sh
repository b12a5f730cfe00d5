#!/usr/bin/env bash
# Installs dependencies, builds, checks formatting and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DOCML_BUILD_TESTS=ON -DOCML_BUILD_BENCHMARKS=ON -DOCML_BUILD_CLI=ON
cmake --build build -j"$(nproc)"
bash scripts/check-format.sh
ctest --test-dir build -j"$(nproc)" --output-on-failure
