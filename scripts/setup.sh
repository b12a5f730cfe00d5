#!/usr/bin/env bash
# Installs the Debian packages ocml needs to build, test and benchmark.
set -euo pipefail
pkgs=(build-essential cmake g++ pkg-config
      nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libsimdjson-dev
      libcpp-httplib-dev libvalijson-dev
      libgtest-dev libgmock-dev libbenchmark-dev clang-format python3-jinja2
      clang-14 clang-tidy libclang-rt-14-dev valgrind pkg-config)
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
