#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run_openai.sh BUILD_DIR FAKE_ENGINE CASE.json: the official OpenAI client for Node against
# `ocml serve` (tests/serve/openai_client.mjs). Skips (77) when Node or the client is absent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v node >/dev/null; then
  echo "skipped: node not found (scripts/setup.sh --dev installs it)"
  exit 77
fi
if [[ ! -d "$here/node_modules/openai" ]]; then
  echo "skipped: tests/serve/node_modules/openai is absent (scripts/setup.sh --dev runs npm ci)"
  exit 77
fi
exec node "$here/openai_client.mjs" "$1" "$2" "$3" "$here/../reference/node_modules"
