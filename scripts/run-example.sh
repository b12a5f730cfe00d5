#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs dependencies, builds, and runs ocml's main job on the bundled examples:
# render an OpenAI conversation to harmony, then parse a (malformed) gpt-oss completion.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DOCML_BUILD_TESTS=OFF -DOCML_BUILD_BENCHMARKS=OFF
cmake --build build -j"$(nproc)" --target ocml_cli
echo "== ocml render -d harmony --add-generation-prompt examples/weather.openai.json"
./build/ocml render -d harmony --add-generation-prompt examples/weather.openai.json
echo
echo "== ocml parse -d harmony --completion --lenient --openai examples/gpt-oss-completion.txt"
./build/ocml parse -d harmony --completion --lenient --openai examples/gpt-oss-completion.txt
echo "== ocml view -d ocml-2.2 --debug examples/transcript-2.2.txt"
./build/ocml view -d ocml-2.2 --debug examples/transcript-2.2.txt
