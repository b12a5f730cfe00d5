#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Replays the conformance suite and the spec fixtures (8 split patterns each, every dialect)
# under valgrind memcheck; any error fails.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target ocml_fuzz_stream_replay >/dev/null
valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
  ./build/fuzz/ocml_fuzz_stream_replay tests/conformance tests/fixtures
echo "valgrind: no errors"
