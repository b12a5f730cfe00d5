// SPDX-License-Identifier: Apache-2.0
// The playground in a real browser: Playwright (playwright-core) drives Debian's chromium,
// headless, against `ocml serve`. The page renders a conversation in two dialects and parses
// a completion; what it shows must be what the CLI prints for the same input (`ocml render
// --add-generation-prompt`, `ocml parse --completion --openai --lenient`), control tokens
// highlighted, token IDs those of the tokenizer, diagnostics with their positions.
//
//   node playground.mjs BUILD_DIR TOKENIZER
// Exit 0: passed; 1: failed; 77: skipped (no chromium).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { meaningOf, startServe } from './support.mjs';

const [build, tiktoken] = process.argv.slice(2);
const browserPath = process.env.OCML_CHROMIUM ?? '/usr/bin/chromium';
if (!fs.existsSync(browserPath)) {
  console.log(`skipped: ${browserPath} is absent (scripts/setup.sh --dev installs Debian's chromium)`);
  process.exit(77);
}
const ocml = path.join(build, 'ocml');
let failures = 0;
function check(ok, what, detail = '') {
  if (!ok) {
    failures++;
    console.log(`FAIL ${what}${detail ? '\n  ' + detail : ''}`);
  }
}

const conversation = {
  messages: [
    { role: 'system', content: 'Answer in one line.' },
    { role: 'user', content: 'Weather in Lyon on Saturday? Reply «court».' },
  ],
  tools: [{ type: 'function', function: { name: 'get_weather', description: 'Forecast',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }],
};
const completion = '<think>\nThe user wants the forecast.\n</think>\n\nLet me check.\n<tool_call>\n' +
  '{"name": "get_weather", "arguments": {"city": "Lyon"}}\n</tool_call><|im_end|>';
const broken = '<think>\nStill thinking when the stream';

function cli(args, input) {
  const r = spawnSync(ocml, args, { input });
  return { out: r.stdout.toString(), err: r.stderr.toString(), status: r.status };
}
const meaning = (j) => JSON.stringify(j.messages.map(meaningOf));

const { server, port } = await startServe(build, ['--engine', 'http://127.0.0.1:9', '-d', 'harmony',
  '--tokenizer', tiktoken, '--encoding', 'o200k_harmony']);

const browser = await chromium.launch({
  executablePath: browserPath,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.waitForSelector('[data-testid=prompt][data-state=ready]');
  check((await page.textContent('[data-testid=served]')).includes('harmony'), 'the page names the served format');
  await page.fill('[data-testid=conversation]', JSON.stringify(conversation, null, 2));
  for (const dialect of ['chatml', 'harmony', 'qwen3']) {
    await page.selectOption('[data-testid=dialect]', dialect);
    const expected = cli(['render', '-d', dialect, '--add-generation-prompt', '-'], JSON.stringify(conversation));
    check(expected.status === 0, `ocml render -d ${dialect}`, expected.err);
    try {
      await page.waitForFunction(([want, d]) => {
        const el = document.querySelector('[data-testid=prompt]');
        return el.dataset.format === d && el.dataset.state === 'ready' && el.textContent === want;
      }, [expected.out, dialect], { timeout: 5000 });
    } catch (e) {
      check(false, `${dialect}: the page's prompt = ocml render`,
            `${JSON.stringify(await page.textContent('[data-testid=prompt]'))}\n  ${JSON.stringify(expected.out)}`);
    }
    const control = await page.$$eval('[data-testid=prompt] .control', (els) => els.map((e) => e.textContent));
    const known = JSON.parse(cli(['dialects', '--json']).out);
    const tokens = (Array.isArray(known) ? known : known.dialects).find((d) => d.name === dialect).tokens;
    check(control.length > 0 && control.every((t) => tokens.includes(t)),
          `${dialect}: control tokens highlighted`, JSON.stringify(control));
    // Token boundaries and IDs: the tokenizer's, for the rendered text.
    const ids = await page.$$eval('[data-testid=tokens] sub', (els) => els.map((e) => Number(e.textContent)));
    if (dialect === 'harmony') {
      const want = JSON.parse(cli(['render', '-d', dialect, '--add-generation-prompt', '--tokenizer', tiktoken,
        '--encoding', 'o200k_harmony', '--ids', '-'], JSON.stringify(conversation)).out).input_ids;
      check(JSON.stringify(ids) === JSON.stringify(want), 'harmony: the page\'s token IDs = ocml render --ids',
            `${ids.length} vs ${want.length} IDs`);
    }
  }
  // Parse a completion in qwen3.
  await page.selectOption('[data-testid=dialect]', 'qwen3');
  await page.fill('[data-testid=completion]', completion);
  const parsed = JSON.parse(cli(['parse', '-d', 'qwen3', '--completion', '--openai', '--lenient', '-'], completion).out);
  try {
    await page.waitForFunction((text) => {
      const el = document.querySelector('[data-testid=message]');
      return el.dataset.state === 'ready' && el.textContent.includes(text);
    }, 'Let me check.', { timeout: 5000 });
    const shown = JSON.parse(await page.textContent('[data-testid=message]'));
    check(meaning(shown) === meaning(parsed), 'qwen3: the page\'s message = ocml parse --openai',
          `${meaning(shown)}\n  ${meaning(parsed)}`);
    check(!shown.messages[0].content.includes('forecast'), 'reasoning kept out of content');
  } catch (e) {
    check(false, 'qwen3: the page shows the parsed message', e.message);
  }
  const view = await page.textContent('[data-testid=view]');
  check(view.includes('Let me check.') && !view.includes('forecast'), 'the user view hides the reasoning', view);
  await page.check('#hidden');
  check((await page.textContent('[data-testid=view]')).includes('[hidden reasoning]'), 'show hidden shows it');
  const spans = await page.$$eval('[data-testid=spans] span', (els) => els.map((e) => [e.className, e.textContent]));
  check(spans.map((s) => s[1]).join('') === completion, 'the span view holds every byte of the completion');
  check(spans.some(([k, t]) => k === 'k-reasoning' && t.includes('forecast')), 'the reasoning span is marked');
  check(spans.some(([k, t]) => k === 'k-call' && t.includes('get_weather')), 'the call span is marked');
  // A completion cut off: the diagnostic the CLI prints, with its position.
  await page.fill('[data-testid=completion]', broken);
  const cliErr = cli(['parse', '-d', 'qwen3', '--completion', '--openai', '--lenient', '-'], broken).err;
  const code = (cliErr.match(/E-[A-Z-]+ \d+:\d+/) ?? [''])[0];
  try {
    await page.waitForFunction((c) => document.querySelector('[data-testid=diagnostics]').textContent.includes(c),
                                code, { timeout: 5000 });
  } catch (e) {
    check(false, 'the diagnostic of a cut completion', `${code} not in ${await page.textContent('[data-testid=diagnostics]')}`);
  }
  check(code !== '', 'the CLI names a diagnostic for a cut completion', cliErr);
  check(errors.length === 0, 'no script error on the page', errors.join('\n'));
} finally {
  await browser.close();
  server.kill('SIGTERM');
}
console.log(`playground: ${failures} failures`);
process.exit(failures ? 1 : 0);
