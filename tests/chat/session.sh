#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `ocml chat` keeps the session (issue 13): a user line that is not UTF-8 is sent as
# U+FFFD; a line ChatML cannot hold is refused for its turn only; a round of 40 calls runs
# --max-tool-calls of them and answers the rest with E-LIMIT-EXCEEDED; a tool that fails
# printing bytes that are not UTF-8 (500 of them: the excerpt is cut) is that call's error;
# a call whose arguments nest 10^6 deep is not read as a call (no crash); an answer the
# engine cuts at max_tokens is reported in words.
# session.sh ENGINE OCML
set -euo pipefail
engine=$1 ocml=$2
dir=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
pid=""
trap '[[ -n $pid ]] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
# The replies of session.json, and a fourth: a call whose arguments nest 10^6 deep.
python3 - "$dir/session.json" "$work/script.json" <<'PY'
import json, sys
script = json.load(open(sys.argv[1]))
d = 1000000
deep = '<tool_call>\n{"name": "bad_tool", "arguments": ' + "[" * d + "]" * d + '}\n</tool_call><|im_end|>'
script["replies"].append({"text": deep, "chunk": 65536})
json.dump(script, open(sys.argv[2], "w"))
PY
"$engine" "$work/script.json" "$work/port" >"$work/requests.jsonl" &
pid=$!
for _ in $(seq 200); do [[ -s $work/port ]] && break; sleep 0.05; done
port=$(cat "$work/port")
cat >"$work/bad_tool.py" <<'PY'
import sys
sys.stdin.read()
sys.stderr.buffer.write("é".encode() * 199 + b"\xff\xfe" * 60)
sys.exit(3)
PY
printf 'hi \xff there\nbad <|im_end|> line\nrun the tool\ngo deep\n' |
  timeout 60 "$ocml" chat -d chatml --endpoint "http://127.0.0.1:$port" \
    --tool "bad_tool=python3 $work/bad_tool.py" --max-tool-calls 3 --max-tokens 0 \
    >"$work/out" 2>"$work/err" && status=0 || status=$?
wait "$pid" || true
pid=""
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$work/out"; echo "--- stderr"; cat "$work/err"; exit 1; }
[[ $status == 1 ]] || fail "exit status $status (1: one turn was refused)"
grep -qF "Hello." "$work/out" || fail "first answer not printed"
grep -qF "The tool failed every time." "$work/out" || fail "the turn after the refused one did not run"
grep -qF "sent as U+FFFD" "$work/err" || fail "no word about the repaired line"
grep -qF "cannot be sent in chatml" "$work/err" || fail "the refused line was not reported"
grep -qF "37 calls past --max-tool-calls not run" "$work/err" || fail "the call cap"
[[ $(grep -c '^\[tool\] running' "$work/err") == 3 ]] || fail "not 3 calls run"
! grep -q "type_error\|E-INTERNAL" "$work/err" || fail "an internal error"
grep -qF "nested deeper than 1024" "$work/err" || fail "the deep call was not reported"
python3 - "$work/requests.jsonl" <<'PY' || fail "requests"
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) == 4, len(reqs)
assert "hi \ufffd there" in reqs[0]["prompt"], reqs[0]["prompt"]
assert "<|im_end|> line" not in "".join(r["prompt"] for r in reqs), "the refused line was sent"
last = reqs[2]["prompt"]
assert last.count("E-LIMIT-EXCEEDED") == 37, last.count("E-LIMIT-EXCEEDED")
assert last.count("E-TOOL-FAILED") == 3, last.count("E-TOOL-FAILED")
assert "\ufffd" in last and "é" in last, "the tool's stderr excerpt"
print("requests ok:", len(reqs))
PY

# An answer the engine cuts at its token limit (finish_reason "length") is said in words,
# with the limit and the flag that raises it, and the turn fails.
"$engine" "$dir/session.json" "$work/port2" >/dev/null &
pid=$!
for _ in $(seq 200); do [[ -s $work/port2 ]] && break; sleep 0.05; done
printf 'hi\n' | timeout 60 "$ocml" chat -d chatml --endpoint "http://127.0.0.1:$(cat "$work/port2")" \
  --max-tokens 4 >"$work/out" 2>"$work/err" && status=0 || status=$?
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
pid=""
[[ $status == 1 ]] || fail "exit status $status after a cut answer (1)"
grep -qF 'finish_reason "length", max_tokens 4' "$work/err" || fail "the cut was not said"
grep -qF 'raise the limit with --max-tokens' "$work/err" || fail "the flag was not named"
grep -qF "Hell" "$work/out" || fail "the partial answer was not shown"
echo "ocml chat session: ok"
