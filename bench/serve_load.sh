#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Load on `ocml serve` with wrk (Debian): ocml_fake_engine serves one harmony answer (analysis,
# then a final message; 4 bytes an SSE event) without end, and wrk runs, in this order,
#   direct  the engine itself, streamed (/v1/completions with the prompt ocml renders),
#   stream  ocml serve in front of it, streamed (/v1/chat/completions, stream: true),
#   whole   ocml serve, not streamed,
# each for SECONDS (direct and stream first over one connection, then all three with 2
# threads and CONNS connections), then `ocml serve` alone until it has
# answered MILLION requests in all, its resident memory read every 10 000 requests. Prints
# requests/s, latency p50/p90/p99 per run, error and non-2xx counts, the latency ocml adds
# (stream − direct) per request and per engine event, and the memory samples.
#   bench/serve_load.sh BUILD_DIR [SECONDS] [CONNS] [TOTAL_REQUESTS]
set -euo pipefail
build=$1 seconds=${2:-30} conns=${3:-8} total=${4:-100000}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

answer='<|channel|>analysis<|message|>The user asks about the weather in Lyon on Saturday; I know the forecast from the tool result: sunny, 24 degrees. Answer in one sentence.<|end|><|start|>assistant<|channel|>final<|message|>Saturday in Lyon looks sunny with a high of 24 °C, a fine day for a picnic in the park.<|return|>'
python3 - "$work/script.json" "$answer" "$((seconds * 4 + 600))" <<'PY'
import json, sys
json.dump({"replies": [{"text": sys.argv[2], "chunk": 4}], "cycle": True,
           "lifetime_s": int(sys.argv[3]), "linger_ms": 0}, open(sys.argv[1], "w"))
PY
"$build/tests/ocml_fake_engine" "$work/script.json" "$work/port" >/dev/null &
for _ in $(seq 200); do [[ -s $work/port ]] && break; sleep 0.05; done
engine="http://127.0.0.1:$(cat "$work/port")"
"$build/ocml-serve" --engine "$engine" -d harmony --port 0 --max-concurrency 64 2>"$work/serve.log" &
serve_pid=$!
for _ in $(seq 200); do grep -q 'http://127.0.0.1:' "$work/serve.log" && break; sleep 0.05; done
serve=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/serve.log" | head -1)

request='{"model":"gpt-oss","messages":[{"role":"user","content":"Weather in Lyon on Saturday?"}]'
prompt=$(printf '%s}' "$request" | "$build/ocml" render -d harmony --add-generation-prompt)
events=$(( (${#answer} + 3) / 4 ))
write_lua() {  # NAME BODY
  python3 - "$work/$1.lua" "$2" <<'PY'
import json, sys
body = sys.argv[2]
open(sys.argv[1], "w").write(f"""wrk.method = "POST"
wrk.body = {json.dumps(body)}
wrk.headers["Content-Type"] = "application/json"
function done(summary, latency, requests)
  io.write(string.format("RESULT requests=%d rps=%.1f p50=%.0f p90=%.0f p99=%.0f errors=%d non2xx=%d\\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.errors.status))
end
""")
PY
}
direct_body=$(python3 -c 'import json,sys; print(json.dumps({"prompt": sys.argv[1], "stream": True, "max_tokens": 8192, "stop": ["<|return|>", "<|call|>"], "skip_special_tokens": False}))' "$prompt")
write_lua direct "$direct_body"
write_lua stream "${request},\"stream\":true}"
write_lua whole "${request}}"

rss() { awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status"; }
served() { grep -c '^POST /v1/chat/completions 200' "$work/serve.log" || true; }
run() {  # NAME URL_PATH BASE [CONNECTIONS] [LABEL]
  local out label=${5:-$1}
  out=$(wrk -t"$((${4:-$conns} < 2 ? 1 : 2))" -c"${4:-$conns}" -d"${seconds}s" --timeout 10s \
        -s "$work/$1.lua" "$3$2" | grep '^RESULT')
  echo "$label: ${out#RESULT }"
  eval "${label}_p50=$(sed 's/.*p50=\([0-9]*\).*/\1/' <<<"$out") ${label}_p99=$(sed 's/.*p99=\([0-9]*\).*/\1/' <<<"$out")"
}
adds() {  # SERVE DIRECT: what ocml adds, a request and an engine event
  local a50=$(($1_p50 - $2_p50)) a99=$(($1_p99 - $2_p99))
  echo "  ocml adds: p50 $a50 us a request, $((a50 / events)) us an event; p99 $a99 us a request, $((a99 / events)) us an event"
}
echo "engine events per answer: $events; wrk -t2 -c$conns -d${seconds}s; ocml-serve rss at start: $(rss) kB"
# One connection: the latency ocml adds with no queueing behind other requests.
run direct /v1/completions "$engine" 1 direct1
run stream /v1/chat/completions "$serve" 1 stream1
adds stream1 direct1
# CONNS connections: throughput, and the latency under load.
run direct /v1/completions "$engine"
run stream /v1/chat/completions "$serve"
adds stream direct
run whole /v1/chat/completions "$serve"
start_n=$(served)
echo "memory (kB of ocml-serve's resident set) after N more requests (from $start_n, at $(rss) kB):"
next=$((start_n + 10000))
wrk -t2 -c"$conns" -d3600s --timeout 10s -s "$work/stream.lua" "$serve/v1/chat/completions" >/dev/null &
wrk_pid=$!
while :; do
  n=$(served)
  if ((n >= next)); then
    echo "  $((n - start_n)): $(rss)"
    next=$((next + 10000))
  fi
  ((n - start_n >= total)) && break
  sleep 0.5
done
kill "$wrk_pid" 2>/dev/null || true
echo "served: $(served) answers 200, $(grep -c '^POST' "$work/serve.log" || true) chat requests in all"
grep '^POST' "$work/serve.log" | grep -v ' 200 ' | head -5 || true
