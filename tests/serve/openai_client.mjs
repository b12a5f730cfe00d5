// SPDX-License-Identifier: Apache-2.0
// The official OpenAI client for Node against `ocml serve` in front of ocml's fake engine: a
// chat with two tool rounds and a final answer, each round asked three ways (whole, streamed
// chunk by chunk, and through the client's own stream helper). Every answer must equal what
// `ocml parse --completion --openai` makes of the same engine output (ids aside: they are the
// server's), reasoning must never reach `content`, and the ids the client sends back in its
// tool messages are the ones the server gave.
//
//   node openai_client.mjs BUILD_DIR FAKE_ENGINE CASE.json REFERENCE_NODE_MODULES
// Exit 0: passed; 1: failed; 77: skipped (a reference the case needs is absent).
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import { meaningOf, startServe } from './support.mjs';

const [build, fakeEngine, caseFile, referenceModules] = process.argv.slice(2);
const here = path.dirname(new URL(import.meta.url).pathname);
const spec = JSON.parse(fs.readFileSync(caseFile, 'utf8'));
const tools = JSON.parse(fs.readFileSync(path.join(here, 'cases', 'tools.json'), 'utf8'));
let format = spec.format;
if (format.startsWith('model:@')) {
  const dir = path.join(referenceModules, format.slice('model:'.length));
  if (!fs.existsSync(path.join(dir, 'tokenizer_config.json'))) {
    console.log(`skipped: ${dir} is absent (scripts/setup.sh --dev installs tests/reference)`);
    process.exit(77);
  }
  format = 'model:' + dir;
}

let failures = 0;
function check(ok, what, detail = '') {
  if (!ok) {
    failures++;
    console.log(`FAIL ${spec.format}: ${what}${detail ? '\n  ' + detail : ''}`);
  }
}

// What a message says, ids aside: content and reasoning (empty as null), calls by name with
// their arguments as JSON values.
const meaning = (m) => JSON.stringify(meaningOf(m));

function parseLikeTheCli(text) {
  const out = execFileSync(
    path.join(build, 'ocml'),
    ['parse', '-d', format, '--completion', '--openai', '--lenient', '-'],
    { input: text, stdio: ['pipe', 'pipe', 'ignore'] },
  );
  const messages = JSON.parse(out).messages;
  return messages.length ? messages[0] : { role: 'assistant', content: '' };
}

// Folds streamed chunks as a client folds them.
async function fold(stream) {
  const m = { role: 'assistant' };
  let finish = null;
  const calls = [];
  for await (const chunk of stream) {
    if (!chunk.choices.length) continue;
    const c = chunk.choices[0];
    if (c.finish_reason) finish = c.finish_reason;
    const d = c.delta;
    if (d.content) m.content = (m.content ?? '') + d.content;
    if (d.reasoning_content) m.reasoning_content = (m.reasoning_content ?? '') + d.reasoning_content;
    for (const t of d.tool_calls ?? []) {
      calls[t.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } };
      if (t.id) calls[t.index].id = t.id;
      if (t.function?.name) calls[t.index].function.name = t.function.name;
      calls[t.index].function.arguments += t.function?.arguments ?? '';
    }
  }
  if (calls.length) m.tool_calls = calls;
  return { message: m, finish };
}

async function waitFor(file) {
  for (let i = 0; i < 500; i++) {
    if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
    await sleep(10);
  }
  throw new Error(`${file} never appeared`);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ocml-serve-openai-'));
const suffix = spec.engine_suffix ?? '';
const replies = [];
for (const r of spec.rounds) {
  for (let k = 0; k < 3; k++) replies.push({ text: r.text + suffix, chunk: 5 + k });
}
fs.writeFileSync(path.join(work, 'script.json'), JSON.stringify({ replies, lifetime_s: 60 }));
const engine = spawn(fakeEngine, [path.join(work, 'script.json'), path.join(work, 'port')], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
const enginePort = await waitFor(path.join(work, 'port'));
const { server, port } = await startServe(build, [
  '--engine', `http://127.0.0.1:${enginePort}`, '-d', format, '--model-name', 'picnic']);

try {
  const client = new OpenAI({ apiKey: 'none', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
  const models = await client.models.list();
  check(models.data[0]?.id === 'picnic', 'GET /v1/models lists the served name', JSON.stringify(models.data));
  const messages = [{ role: 'user', content: spec.user }];
  let resultIndex = 0;
  for (const [i, round] of spec.rounds.entries()) {
    const expected = parseLikeTheCli(round.text);
    const ask = { model: 'picnic', messages, tools };
    const whole = await client.chat.completions.create(ask);
    const got = whole.choices[0].message;
    check(meaning(got) === meaning(expected), `round ${i}: whole answer = ocml parse --openai`,
          `${meaning(got)}\n  ${meaning(expected)}`);
    check(whole.choices[0].finish_reason === round.finish, `round ${i}: finish_reason ${round.finish}`,
          whole.choices[0].finish_reason);
    const streamed = await fold(await client.chat.completions.create({ ...ask, stream: true }));
    check(meaning(streamed.message) === meaning(expected), `round ${i}: streamed answer = ocml parse --openai`,
          `${meaning(streamed.message)}\n  ${meaning(expected)}`);
    check(streamed.finish === round.finish, `round ${i}: streamed finish_reason`, streamed.finish);
    // The client's own accumulator (content and calls; it knows nothing of reasoning_content).
    const helper = await client.chat.completions.stream(ask).finalChatCompletion();
    const h = helper.choices[0].message;
    const plain = (m) => JSON.parse(meaning({ ...m, reasoning_content: null }));
    check(JSON.stringify(plain(h)) === JSON.stringify(plain(expected)),
          `round ${i}: the client's stream helper = ocml parse --openai`, `${meaning(h)}\n  ${meaning(expected)}`);
    if (round.reasoning_word) {
      for (const m of [got, streamed.message]) {
        check((m.reasoning_content ?? '').includes(round.reasoning_word), `round ${i}: reasoning kept`);
        check(!(m.content ?? '').includes(round.reasoning_word), `round ${i}: reasoning leaked into content`,
              m.content);
      }
    }
    // The next round: the answer as the client got it, and a reply to each call by its id.
    messages.push(got);
    for (const call of got.tool_calls ?? []) {
      check(/^call_/.test(call.id), `round ${i}: call id`, call.id);
      messages.push({ role: 'tool', tool_call_id: call.id,
                      content: spec.tool_results[resultIndex++ % spec.tool_results.length] });
    }
  }
  // A bad request is the client's error, with OpenAI's fields.
  try {
    await client.chat.completions.create({ model: 'picnic', messages: [] });
    check(false, 'an empty messages array is refused');
  } catch (e) {
    check(e.status === 400 && e.param === 'messages', 'a bad request is a 400 naming the field',
          `${e.status} ${e.param} ${e.message}`);
  }
} finally {
  server.kill('SIGTERM');
  engine.kill('SIGTERM');
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(`${spec.format}: ${spec.rounds.length} rounds × 3 ways, ${failures} failures`);
process.exit(failures ? 1 : 0);
