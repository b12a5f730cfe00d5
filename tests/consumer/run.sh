#!/usr/bin/env bash
# Builds and runs tests/consumer against ocml: MODE=package installs ocml to a temporary
# prefix and uses find_package(ocml); MODE=subdirectory uses add_subdirectory.
set -euo pipefail
mode=$1 src=$2 build=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ $mode == pkgconfig ]]; then
  cmake --install "$build" --prefix "$work/prefix" >/dev/null
  export PKG_CONFIG_PATH=$(dirname "$(find "$work/prefix" -name ocml.pc)")
  # A static library: its private requirements come with --static.
  g++ -std=c++20 "$src/tests/consumer/main.cpp" -o "$work/consumer" \
    $(pkg-config --cflags --libs --static ocml)
  "$work/consumer" | grep -q '"content":"Hi"'
  echo "consumer ($mode): ok"
  exit 0
fi
if [[ $mode == package ]]; then
  cmake --install "$build" --prefix "$work/prefix" >/dev/null
  cmake -S "$src/tests/consumer" -B "$work/b" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
else
  cmake -S "$src/tests/consumer" -B "$work/b" -DOCML_CONSUMER_MODE=subdirectory \
    -DCMAKE_BUILD_TYPE=Debug \
    -DOCML_SOURCE_DIR="$src" >/dev/null
fi
cmake --build "$work/b" -j2 >/dev/null
"$work/b/consumer" | grep -q '"content":"Hi"'
echo "consumer ($mode): ok"
