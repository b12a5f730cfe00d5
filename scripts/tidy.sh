#!/usr/bin/env bash
# clang-tidy with the checked-in .clang-tidy over the library and the tool (CI runs this).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f build/compile_commands.json ]] || cmake -S . -B build -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
mapfile -t files < <(git ls-files 'src/*.cpp' 'tools/*.cpp')
run-clang-tidy -p build -quiet -j "$(nproc)" "${files[@]}" >build/tidy.log 2>&1 || {
  grep -E "(warning|error):" build/tidy.log | sort -u
  echo "clang-tidy: findings above"
  exit 1
}
echo "clang-tidy: ${#files[@]} files, no findings"
