#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end `ocml chat`: a two-tool conversation against the loopback engine.
# run.sh ENGINE OCML DIALECT [TOKENIZER]  (the script of replies is tests/chat/DIALECT.json;
# for DIALECT model:PATH, a model's own templates, it is tests/chat/model.json)
# With TOKENIZER, token mode: prompts go out as IDs, the engine samples the replies as IDs,
# and the requests are checked as the text those IDs spell.
set -euo pipefail
engine=$1 ocml=$2 dialect=$3 tokenizer=${4:-}
tok_args=()
if [[ -n $tokenizer ]]; then
  if [[ ! -f $tokenizer ]]; then
    echo "SKIP: $tokenizer is absent (run setup.sh --dev to install the reference tokenizers)"
    exit 77
  fi
  tok_args=(--tokenizer "$tokenizer")
fi
dir=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
pid=""
trap '[[ -n $pid ]] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
script="$dir/${dialect%%:*}.json"
"$engine" "$script" "$work/port" ${tokenizer:+"$tokenizer"} >"$work/requests.jsonl" &
pid=$!
for _ in $(seq 200); do [[ -s $work/port ]] && break; sleep 0.05; done
port=$(cat "$work/port")
echo "What is the weather in Paris, and the time there?" |
  timeout 60 "$ocml" chat -d "$dialect" --endpoint "http://127.0.0.1:$port" \
    --tools "$dir/tools.json" --tool "get_weather=python3 $dir/weather.py" \
    --tool "get_time=python3 $dir/time.py" "${tok_args[@]}" >"$work/out" 2>"$work/err" || {
  echo "ocml chat failed"; cat "$work/err"; exit 1; }
wait "$pid"
pid=""
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$work/out"; echo "--- stderr"; cat "$work/err"; exit 1; }
grep -qF "It is 18 °C in Paris and 14:05 there." "$work/out" || fail "final answer not printed"
! grep -q "HIDDEN-ANALYSIS" "$work/out" || fail "reasoning printed without --show-reasoning"
grep -q '^\[tool\] functions.get_weather (.*): ok$' "$work/err" || fail "get_weather did not run"
grep -q '^\[tool\] functions.get_time (.*): ok$' "$work/err" || fail "get_time did not run"
python3 - "$work/requests.jsonl" "$script" "$ocml" "$tokenizer" <<'PY' || fail "requests"
import json, subprocess, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
ocml, tokenizer = sys.argv[3], sys.argv[4]
if tokenizer:
    # Token mode: IDs out, stop IDs, sampled IDs asked for; the checks below read the text.
    for r in reqs:
        assert isinstance(r["prompt"], list) and all(isinstance(i, int) for i in r["prompt"]), r
        assert r["return_token_ids"] is True and "stop" not in r, r
        assert len(r["stop_token_ids"]) >= 1, r
        r["prompt"] = subprocess.run([ocml, "tokens", "decode", "--tokenizer", tokenizer],
                                     input=json.dumps(r["prompt"]), capture_output=True,
                                     text=True, check=True).stdout
want = len(json.load(open(sys.argv[2]))["replies"])
assert len(reqs) == want, (len(reqs), want)
last = reqs[-1]["prompt"]
assert '\\"temp_c\\":18' in last or '"temp_c":18' in last, last
assert '14:05' in last, last
assert "HIDDEN-ANALYSIS need" in reqs[1]["prompt"] or "harmony" not in sys.argv[2], "analysis of an unresolved call was dropped"
for r in reqs:
    assert r["stream"] is True and r["skip_special_tokens"] is False
# The first prompt declares every tool (issue 14), in the dialect's own way.
first = reqs[0]["prompt"]
for name in ("get_weather", "get_time"):
    if "harmony" in sys.argv[2]:
        assert "type %s = " % name in first, (name, first)
    else:
        assert '"name": "%s"' % name in first, (name, first)
if "harmony" in sys.argv[2]:
    for piece in ("<|start|>system<|message|>", "Reasoning: ", "# Valid channels: analysis, commentary, final",
                  "<|start|>developer<|message|>", "namespace functions {"):
        assert piece in first, (piece, first)
# Tool results in the dialect's own form: the tool's raw output, not 2.2's envelope.
assert '"ok":true' not in last and '"ok": true' not in last, last
print("requests ok:", len(reqs))
PY
echo "ocml chat ($dialect${tokenizer:+, token mode}): ok"
