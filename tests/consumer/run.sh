#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds and runs tests/consumer against ocml: MODE=package installs ocml to a temporary
# prefix and uses find_package(ocml); MODE=pkgconfig compiles with pkg-config's flags;
# MODE=subdirectory uses add_subdirectory (building the markup program only). In every mode
# the render-and-parse program must not link cpp-httplib's TLS or compression libraries, and
# the markup program no ICU, PCRE2 or GMP either; the HTTP one uses ocml::http.
set -euo pipefail
mode=$1 src=$2 build=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
no_http() {  # $1: a linked program
  if ldd "$1" | grep -E 'libssl|libcrypto|libbrotli|libz\.'; then
    echo "consumer ($mode): $1 links TLS/compression libraries it does not use" >&2
    exit 1
  fi
  if nm -C "$1" | grep -q 'httplib::'; then
    echo "consumer ($mode): $1 holds cpp-httplib code" >&2
    exit 1
  fi
}
markup_only() {  # $1: a program linked with the markup library alone
  if ldd "$1" | grep -E 'libicu|libpcre2|libgmp|libssl|libcrypto'; then
    echo "consumer ($mode): $1 (ocml::markup) links ICU, PCRE2, GMP or TLS" >&2
    exit 1
  fi
  "$1" | grep -q '"content":"Hi"'
}
if [[ $mode == pkgconfig ]]; then
  cmake --install "$build" --prefix "$work/prefix" >/dev/null
  export PKG_CONFIG_PATH=$(dirname "$(find "$work/prefix" -name ocml.pc)")
  flags=$(pkg-config --libs --static ocml)
  if grep -qE 'ssl|crypto|httplib|brotli' <<<"$flags"; then
    echo "consumer ($mode): pkg-config ocml asks for HTTP libraries: $flags" >&2
    exit 1
  fi
  # A static library: its private requirements come with --static.
  g++ -std=c++20 "$src/tests/consumer/main.cpp" -o "$work/consumer" \
    $(pkg-config --cflags --libs --static ocml)
  "$work/consumer" | grep -q '"content":"Hi"'
  no_http "$work/consumer"
  flags=$(pkg-config --libs --static ocml-markup)
  if grep -qE 'icu|pcre2|gmp|ssl|crypto|httplib' <<<"$flags"; then
    echo "consumer ($mode): pkg-config ocml-markup asks for more than markup needs: $flags" >&2
    exit 1
  fi
  g++ -std=c++20 "$src/tests/consumer/main.cpp" -o "$work/markup_consumer" \
    $(pkg-config --cflags --libs --static ocml-markup)
  markup_only "$work/markup_consumer"
  g++ -std=c++20 "$src/tests/consumer/http_main.cpp" -o "$work/http_consumer" \
    $(pkg-config --cflags --libs --static ocml-http)
  "$work/http_consumer" | grep -q 'http ok'
  echo "consumer ($mode): ok"
  exit 0
fi
if [[ $mode == package ]]; then
  cmake --install "$build" --prefix "$work/prefix" >/dev/null
  cmake -S "$src/tests/consumer" -B "$work/b" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
else
  # (unoptimized and without debug information: this checks the CMake integration, and
  # builds the markup library a further time, so it builds it the cheapest way: 43 s
  # instead of 112 s as a unity build)
  cmake -S "$src/tests/consumer" -B "$work/b" -DOCML_CONSUMER_MODE=subdirectory \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
    -DOCML_SOURCE_DIR="$src" >/dev/null
fi
cmake --build "$work/b" -j2 >/dev/null
markup_only "$work/b/markup_consumer"
no_http "$work/b/markup_consumer"
if [[ $mode == package ]]; then
  "$work/b/consumer" | grep -q '"content":"Hi"'
  no_http "$work/b/consumer"
  "$work/b/http_consumer" | grep -q 'http ok'
fi
echo "consumer ($mode): ok"
