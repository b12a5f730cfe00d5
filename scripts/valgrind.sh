#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Replays the conformance suite and the spec fixtures (8 split patterns each, every dialect)
# under valgrind memcheck; any error fails. It is the ctest `valgrind_replay` (the test
# command runs it with the rest of the Release suite); this runs it alone.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target ocml_fuzz_stream_replay >/dev/null
ctest --test-dir build -R '^valgrind_replay$' --output-on-failure
