// SPDX-License-Identifier: Apache-2.0
// The ocml playground: a conversation rendered in a format (the server's /ocml/render, the same
// text `ocml render` writes) and a model's output parsed (/ocml/parse, what `ocml parse
// --completion --lenient` reads). No framework: the page is this file and two others, built
// into ocml-serve.
'use strict';

const $ = (id) => document.getElementById(id);
const EXAMPLE = {
  messages: [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'What is the weather in Lyon on Saturday?' },
  ],
  tools: [{ type: 'function', function: { name: 'get_weather', description: 'Forecast for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, day: { type: 'string' } },
      required: ['city'] } } }],
};
const EXAMPLE_OUTPUT = {
  harmony: '<|channel|>analysis<|message|>Need the forecast.<|end|><|start|>assistant<|channel|>commentary ' +
    'to=functions.get_weather <|constrain|>json<|message|>{"city": "Lyon", "day": "saturday"}<|call|>',
  qwen3: '<think>\nNeed the forecast.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": ' +
    '{"city": "Lyon"}}\n</tool_call><|im_end|>',
  chatml: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lyon"}}\n</tool_call><|im_end|>',
};

let formats = [];
let lastParse = null;
let renders = 0, parses = 0;  // answers that arrive after a newer request are dropped

async function post(path, body) {
  const r = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' },
                                body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}

function debounce(f, ms) {
  let t = null;
  return () => { clearTimeout(t); t = setTimeout(f, ms); };
}

function current() {
  return formats.find((f) => f.name === $('dialect').value);
}

// Text with every occurrence of a control token wrapped in a highlighted span.
function highlight(el, text, control) {
  el.textContent = '';
  const tokens = [...new Set(control)].filter((t) => t).sort((a, b) => b.length - a.length);
  let i = 0, plain = '';
  const flush = () => { if (plain) el.appendChild(document.createTextNode(plain)); plain = ''; };
  while (i < text.length) {
    const t = tokens.find((c) => text.startsWith(c, i));
    if (t) {
      flush();
      const s = document.createElement('span');
      s.className = 'control';
      s.textContent = t;
      el.appendChild(s);
      i += t.length;
    } else {
      plain += text[i++];
    }
  }
  flush();
}

function showDiagnostics(list, more = 0) {
  const ul = $('diagnostics');
  ul.textContent = '';
  for (const d of list) {
    const li = document.createElement('li');
    li.className = d.severity;
    li.textContent = `${d.code} ${d.line}:${d.column} (byte ${d.offset}) ${d.message}`;
    ul.appendChild(li);
  }
  if (more > 0) {
    const li = document.createElement('li');
    li.textContent = `… and ${more} more (the CLI lists them all: ocml validate)`;
    ul.appendChild(li);
  }
}

async function render() {
  const id = ++renders;
  const prompt = $('prompt');
  let request;
  try {
    request = JSON.parse($('conversation').value);
  } catch (e) {
    prompt.textContent = `The conversation is not JSON: ${e.message}`;
    prompt.dataset.state = 'error';
    return;
  }
  const format = $('dialect').value;
  const r = await post('/ocml/render', { format, request, add_generation_prompt: $('gen').checked });
  if (id !== renders) return;
  if (r.status !== 200) {
    prompt.textContent = r.body.error?.message ?? `HTTP ${r.status}`;
    prompt.dataset.state = 'error';
    return;
  }
  const errors = r.body.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) {
    prompt.textContent = errors.map((d) => `${d.code} ${d.message}`).join('\n');
  } else {
    highlight(prompt, r.body.text, r.body.control);
  }
  prompt.dataset.format = r.body.format;
  prompt.dataset.state = errors.length ? 'error' : 'ready';
  const tokens = $('tokens');
  tokens.hidden = $('tokens-title').hidden = !r.body.tokens;
  tokens.textContent = '';
  for (const t of r.body.tokens ?? []) {
    const s = document.createElement('span');
    if (t.special) s.className = 'special';
    s.title = `ID ${t.id}`;
    s.textContent = t.text;
    const sub = document.createElement('sub');
    sub.textContent = t.id;
    s.appendChild(sub);
    tokens.appendChild(s);
  }
  tokens.dataset.count = (r.body.tokens ?? []).length;
  showSource();
}

// The completion coloured by what each run of bytes became ([from, to, kind] in bytes,
// from the server; past the last run, or past a cut list, the text is plain).
function showSpans(text, spans) {
  const el = $('spans');
  el.textContent = '';
  const bytes = new TextEncoder().encode(text);
  const offsets = [];  // byte offset -> UTF-16 index
  for (let i = 0, b = 0; i < text.length; i++) {
    const cp = text.codePointAt(i);
    const n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    for (let k = 0; k < n; k++) offsets[b + k] = i;
    b += n;
    if (cp >= 0x10000) i++;
  }
  offsets[bytes.length] = text.length;
  const piece = (from, to, kind) => {
    if (from >= to) return;
    const s = document.createElement('span');
    if (kind) s.className = `k-${kind}`;
    s.textContent = text.slice(from, to);
    el.appendChild(s);
  };
  let at = 0;
  for (const [b0, b1, kind] of spans) {
    const from = offsets[b0] ?? text.length, to = offsets[b1] ?? text.length;
    piece(at, from, '');
    piece(Math.max(at, from), to, kind);
    at = Math.max(at, to);
  }
  piece(at, text.length, '');
}

function showView() {
  if (!lastParse) return;
  $('view').textContent = $('hidden').checked ? lastParse.debug_view : lastParse.view;
}

function showSource() {
  const f = current();
  const s = f?.response_source;
  $('source').textContent = s ? `Response template: ${s.kind}${s.name ? ' ' + s.name : ''}. ${s.why}` : '';
}

async function parse() {
  const id = ++parses;
  const text = $('completion').value;
  const format = $('dialect').value;
  let tools = null;
  try { tools = JSON.parse($('conversation').value).tools ?? null; } catch (e) { /* rendered as an error */ }
  const message = $('message');
  const r = await post('/ocml/parse', { format, text, tools });
  if (id !== parses) return;
  if (r.status !== 200) {
    message.textContent = r.body.error?.message ?? `HTTP ${r.status}`;
    message.dataset.state = 'error';
    return;
  }
  lastParse = r.body;
  message.textContent = JSON.stringify({ messages: r.body.messages }, null, 2);
  message.dataset.format = r.body.format;
  message.dataset.state = 'ready';
  showSpans(text, r.body.spans);
  showView();
  showDiagnostics(r.body.diagnostics, r.body.diagnostics_more);
}

async function start() {
  const r = await fetch('/ocml/formats').then((x) => x.json());
  formats = r.formats;
  $('served').textContent = `serving ${r.served}` + (r.tokenizer ? ` · tokenizer ${r.tokenizer}` : '');
  for (const f of formats) {
    const o = document.createElement('option');
    o.value = f.name;
    o.textContent = f.model ? `${f.name} (served)` : f.name;
    $('dialect').appendChild(o);
  }
  $('dialect').value = r.served;
  $('conversation').value = JSON.stringify(EXAMPLE, null, 2);
  $('completion').value = EXAMPLE_OUTPUT[r.served] ?? EXAMPLE_OUTPUT.chatml;
  const later = debounce(() => render().then(parse), 250);
  $('conversation').addEventListener('input', later);
  $('completion').addEventListener('input', debounce(parse, 250));
  $('dialect').addEventListener('change', () => render().then(parse));
  $('gen').addEventListener('change', render);
  $('hidden').addEventListener('change', showView);
  await render();
  await parse();
}

start();
