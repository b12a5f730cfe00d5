#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets with clang 14 under ASan+UBSan and runs each (as many at once
# as there are cores, reports in target order) for a bounded time (OCML_FUZZ_SECONDS,
# default 30) or, with OCML_FUZZ_RUNS=N, for exactly N executions from a fixed seed (reproducible: what CI runs). Seeded from the conformance suite and
# fuzz/corpus. OCML_FUZZ_TARGETS picks targets. Prints executions per target; fails on any
# finding (the input is kept in build-fuzz/findings).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${OCML_FUZZ_SECONDS:-30}
# OCML_FUZZ_WITH_TESTS=ON also builds the test suite and the CLI in the same tree (CI runs
# the suite under the sanitizers from it); --configure-only stops after configuring.
with_tests=${OCML_FUZZ_WITH_TESTS:-}
if [[ -z $with_tests && -f build-fuzz/CMakeCache.txt ]]; then
  with_tests=$(sed -n 's/^OCML_BUILD_TESTS:BOOL=//p' build-fuzz/CMakeCache.txt)
fi
with_tests=${with_tests:-OFF}
# -O1 with assertions: sanitizer builds compile ~2x faster than at -O2 and run well enough.
# Line tables only: a finding's stack still names files and lines, and the build takes 322 s
# instead of 408 s with full debug information (docs/decisions.md 68). A unity build
# (OCML_UNITY=OFF for one source a unit) compiles the shared headers once per 16 sources
# (docs/decisions.md 97).
CXX=clang++-14 CC=clang-14 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_UNITY_BUILD="${OCML_UNITY:-ON}" -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DOCML_BUILD_FUZZERS=ON -DOCML_ASAN=ON -DOCML_UBSAN=ON -DOCML_BUILD_TESTS="$with_tests" \
  -DOCML_BUILD_BENCHMARKS=OFF -DOCML_BUILD_CLI="$with_tests" >/dev/null
[[ ${1:-} == --configure-only ]] && exit 0
# The targets (and each parse target's dialect) as fuzz/CMakeLists.txt found them in the
# codec registry.
declare -A dialect_of=()
targets=()
while read -r name dialect; do
  targets+=("$name")
  [[ -n ${dialect:-} ]] && dialect_of[$name]=$dialect
done <build-fuzz/fuzz/targets.txt
if [[ -n ${OCML_FUZZ_TARGETS:-} ]]; then read -r -a targets <<<"$OCML_FUZZ_TARGETS"; fi
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/ocml_fuzz_}" >/dev/null
mkdir -p build-fuzz/findings
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
# One target: its seed corpus, a bounded run, "fuzz T: …" on stdout (exit 1 on a finding).
run_target() {
  local t=$1 corpus log runs bound
  corpus=$(mktemp -d)
  case $t in
    json) cp fuzz/corpus/json/* examples/*.json "$corpus"/ ;;
    yaml) cp fuzz/corpus/yaml/* "$corpus"/ ;;
    convert) find tests/conformance -name "*.txt" -size -64k -exec cp --backup=numbered {} "$corpus"/ \; ; cp fuzz/corpus/convert/* "$corpus"/ ;;
    template) cp fuzz/corpus/template/* "$corpus"/ ;;
    response) cp fuzz/corpus/response/* "$corpus"/
              find tests/conformance/chatml tests/conformance/qwen3 tests/conformance/harmony \
                -name '*.txt' -size -16k -exec cp --backup=numbered {} "$corpus"/ \; ;;
    parse_*) find tests/conformance/"${dialect_of[$t]}" -name '*.txt' -size -64k -exec cp {} "$corpus"/ \; ;;
    *) find tests/conformance tests/fixtures -name '*.txt' -size -64k -exec cp --backup=numbered {} "$corpus"/ \; ;;
  esac
  log=build-fuzz/findings/$t.log
  if [[ -n ${OCML_FUZZ_RUNS:-} ]]; then
    bound=(-runs="$OCML_FUZZ_RUNS" -seed=1)
  else
    bound=(-max_total_time="$seconds")
  fi
  local rc=0
  if ./build-fuzz/fuzz/ocml_fuzz_"$t" "${bound[@]}" -max_len=16384 -rss_limit_mb=4096 \
       -artifact_prefix=build-fuzz/findings/"$t"- "$corpus" >"$log" 2>&1; then
    runs=$(grep -Eo 'Done [0-9]+ runs' "$log" | grep -Eo '[0-9]+' || echo "?")
    echo "fuzz $t: $runs executions, no finding"
  else
    echo "fuzz $t: FINDING (see $log)"; tail -20 "$log"; rc=1
  fi
  rm -rf "$corpus"
  return $rc
}
# Each target is one process on one core: run as many at once as there are cores (every
# target still gets its full bound; the reports come out in target order).
status=0
jobs=$(nproc)
running=0
for t in "${targets[@]}"; do
  if ((running >= jobs)); then
    wait -n || status=1
    running=$((running - 1))
  fi
  run_target "$t" >"build-fuzz/findings/$t.report" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || status=1
  running=$((running - 1))
done
for t in "${targets[@]}"; do cat "build-fuzz/findings/$t.report"; done
exit $status
