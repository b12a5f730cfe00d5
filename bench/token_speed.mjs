// SPDX-License-Identifier: Apache-2.0
// The peer in the same run: tiktoken-rs (native, Node binding) and, for scale, the
// `tiktoken` WASM package, on the corpus bench/token_speed.sh gives ocml_token_speed.
//   node bench/token_speed.mjs CORPUS_FILE
// With a tokenizer.json, Hugging Face `tokenizers` (the official Node binding) on it
// instead: encodeBatch of 256 documents; run with TOKENIZERS_PARALLELISM=false for one
// thread, as ocml runs.
//   node bench/token_speed.mjs CORPUS_FILE TOKENIZER_JSON
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../tests/reference/package.json'));
const corpus = readFileSync(process.argv[2], 'utf8');
const docs = [];
for (let at = 0; at < corpus.length; ) {
  let end = corpus.indexOf('\n\n', at);
  end = end < 0 ? corpus.length : end + 2;
  docs.push(corpus.slice(at, end));
  at = end;
}
const bytes = Buffer.byteLength(corpus);
const time = (name, encode) => {
  let best = Infinity;
  let tokens = 0;
  for (let run = 0; run < 3; ++run) {
    const t0 = process.hrtime.bigint();
    tokens = 0;
    for (const d of docs) tokens += encode(d).length;
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  console.log(`${name} encode_MBps ${(bytes / best / 1e6).toFixed(1)} (${tokens} tokens, best of 3)`);
};
if (process.argv[3]) {
  const { Tokenizer } = require('tokenizers');
  const t0 = process.hrtime.bigint();
  const tok = Tokenizer.fromFile(process.argv[3]);
  console.log(`hf-tokenizers load_ms ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1)}`);
  let best = Infinity;
  let tokens = 0;
  for (let run = 0; run < 3; ++run) {
    const t1 = process.hrtime.bigint();
    tokens = 0;
    for (let i = 0; i < docs.length; i += 256) {
      const encs = await tok.encodeBatch(docs.slice(i, i + 256), { addSpecialTokens: false });
      for (const e of encs) tokens += e.getIds().length;
    }
    best = Math.min(best, Number(process.hrtime.bigint() - t1) / 1e9);
  }
  console.log(`hf-tokenizers encode_MBps ${(bytes / best / 1e6).toFixed(1)} (${tokens} tokens, best of 3)`);
  process.exit(0);
}
let t0 = process.hrtime.bigint();
const rs = require('tiktoken-rs-node-linux-x64-gnu/tiktoken-rs-node.linux-x64-gnu.node').getEncoding('o200k_base');
console.log(`tiktoken-rs load_ms ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1)}`);
time('tiktoken-rs', (d) => rs.encode(d, []));
t0 = process.hrtime.bigint();
const { get_encoding } = require('tiktoken');
const wasm = get_encoding('o200k_base');
console.log(`tiktoken-wasm load_ms ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(1)}`);
time('tiktoken-wasm', (d) => wasm.encode_ordinary(d));
