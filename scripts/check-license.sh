#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when the Apache-2.0 LICENSE is missing or a source file (C++, shell, Python,
# JavaScript, CMake, pkg-config) lacks its SPDX-License-Identifier line near the top.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -f LICENSE ]] && grep -q "Apache License" LICENSE || { echo "license check: no Apache-2.0 LICENSE file"; exit 1; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.mjs' '*.js' '*.sh' '*.py' '*.cmake' \
  '*.cmake.in' '*.pc.in' '*CMakeLists.txt' .ci/run | grep -v '/node_modules/')
missing=0
for f in "${files[@]}"; do
  if ! head -n 3 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0'; then
    echo "license check: $f has no SPDX-License-Identifier line"
    missing=$((missing + 1))
  fi
done
((missing == 0)) || exit 1
echo "license check: ${#files[@]} files carry SPDX-License-Identifier: Apache-2.0"
