#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Out of memory is an error for one line, never an abort: under a 2 GB address space, a
# batch whose second line makes a template hold 100 strings of 60 MB writes line 1 and
# line 3, and E-INTERNAL for line 2 (docs/ROBUSTNESS.md).
# usage: check_out_of_memory.sh OCML_BINARY FIXTURE_DIR
set -u
ocml=$1
dir=$2
out=$(ulimit -v 2000000; "$ocml" render --template "$dir/out_of_memory.jinja" --jsonl \
      "$dir/out_of_memory.jsonl" 2>/dev/null)
rc=$?
expected='{"text":"1"}
{"line":2,"error":{"code":"E-INTERNAL","message":"out of memory rendering the template","line":0,"column":1}}
{"text":"2"}'
if [[ $rc -ne 1 || "$out" != "$expected" ]]; then
  echo "exit $rc, output:"
  echo "$out"
  exit 1
fi
echo "line 2 out of memory: E-INTERNAL; lines 1 and 3 written"
