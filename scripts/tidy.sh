#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# clang-tidy with the checked-in .clang-tidy over the library and the tool (CI runs this).
set -euo pipefail
cd "$(dirname "$0")/.."
# Its own compile database, without precompiled headers (clang cannot read g++'s).
cmake -S . -B build-tidy -DOCML_PCH=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
mapfile -t files < <(git ls-files 'src/*.cpp' 'tools/*.cpp')
# OCML_TIDY_ANALYZER=0 (what CI sets) leaves out the path-sensitive clang-analyzer checks,
# to keep CI within its 30 minutes (docs/decisions.md 78); run without it, they are in.
checks=()
if [[ ${OCML_TIDY_ANALYZER:-1} == 0 ]]; then checks=(-checks=-clang-analyzer-*); fi
# The ledger (scripts/tidy-ledger.txt) lists the units clang-tidy found clean, keyed by
# everything its verdict depends on; only the others are checked (docs/decisions.md 101).
# OCML_TIDY_FULL=1 checks every file. The ledger CI reads is the one made with CI's checks:
# record it with OCML_TIDY_ANALYZER=0 bash scripts/tidy.sh.
all=("${files[@]}")
python3 scripts/tidy_ledger.py stale build-tidy "${checks[*]:-all}" "${all[@]}" >build-tidy/stale.txt
if [[ ${OCML_TIDY_FULL:-0} != 1 ]]; then mapfile -t files <build-tidy/stale.txt; fi
if ((${#files[@]} > 0)); then
  run-clang-tidy -p build-tidy -quiet -j "$(nproc)" "${checks[@]}" "${files[@]}" \
    >build-tidy/tidy.log 2>&1 || {
    grep -E "(warning|error):" build-tidy/tidy.log | sort -u
    echo "clang-tidy: findings above"
    exit 1
  }
fi
if [[ ${CI:-} != true ]]; then
  python3 scripts/tidy_ledger.py record build-tidy
fi
echo "clang-tidy: ${#files[@]} of ${#all[@]} files checked (the rest unchanged since found clean), no findings"
