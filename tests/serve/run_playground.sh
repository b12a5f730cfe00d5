#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run_playground.sh BUILD_DIR: the playground in headless chromium through Playwright
# (tests/serve/playground.mjs). Skips (77) when Node, playwright-core, chromium or the
# o200k tokenizer file is absent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tiktoken="$here/../reference/o200k_base.tiktoken"
for need in node /usr/bin/chromium; do
  if ! command -v "$need" >/dev/null; then
    echo "skipped: $need not found (scripts/setup.sh --dev installs it)"
    exit 77
  fi
done
if [[ ! -d "$here/node_modules/playwright-core" || ! -f "$tiktoken" ]]; then
  echo "skipped: tests/serve/node_modules or $tiktoken is absent (scripts/setup.sh --dev)"
  exit 77
fi
exec node "$here/playground.mjs" "$1" "$tiktoken"
