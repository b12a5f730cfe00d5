// SPDX-License-Identifier: Apache-2.0
// Encodes each line of a JSONL file of strings with a reference tokenizer and writes one
// JSON array of IDs per line. The references are not ocml's: Hugging Face's own Node
// binding (`tokenizers`) for tokenizer.json files, and tiktoken-rs (native) for tiktoken
// encodings. Special tokens are recognized (HF: added tokens always are; tiktoken: all).
//
//   node tokenize_reference.mjs hf tokenizer.json in.jsonl out.jsonl
//   node tokenize_reference.mjs hf-decode tokenizer.json in.jsonl out.jsonl   (each line:
//     [IDs, the IDs decoded with skipSpecialTokens false])
//   node tokenize_reference.mjs hf-normalize - in.jsonl out.jsonl   (each line: its NFC,
//     NFD, NFKC and NFKD and its Lowercase by the binding's normalizers)
//   node tokenize_reference.mjs tiktoken o200k_base in.jsonl out.jsonl
//   node tokenize_reference.mjs tiktoken-ordinary o200k_base in.jsonl out.jsonl
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../reference/package.json'));
const [kind, what, input, output] = process.argv.slice(2);
const lines = readFileSync(input, 'utf8').split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l));
const out = [];
if (kind === 'hf-normalize') {
  const t = require('tokenizers');
  const forms = [t.nfcNormalizer(), t.nfdNormalizer(), t.nfkcNormalizer(), t.nfkdNormalizer(),
    t.lowercase()];
  for (const l of lines) out.push(JSON.stringify(forms.map((f) => f.normalizeString(l))));
} else if (kind === 'hf' || kind === 'hf-decode') {
  const { Tokenizer } = require('tokenizers');
  const tok = Tokenizer.fromFile(what);
  const batch = 256;
  for (let i = 0; i < lines.length; i += batch) {
    const encs = await tok.encodeBatch(lines.slice(i, i + batch), { addSpecialTokens: false });
    const ids = encs.map((e) => Array.from(e.getIds()));
    if (kind === 'hf') {
      for (const x of ids) out.push(JSON.stringify(x));
    } else {
      const texts = await tok.decodeBatch(ids, false);
      ids.forEach((x, k) => out.push(JSON.stringify([x, texts[k]])));
    }
  }
} else {
  const t = require('tiktoken-rs-node-linux-x64-gnu/tiktoken-rs-node.linux-x64-gnu.node');
  const enc = t.getEncoding(what);
  const specials = kind === 'tiktoken' ? 'all' : [];
  for (const l of lines) out.push(JSON.stringify(Array.from(enc.encode(l, specials))));
}
writeFileSync(output, out.join('\n') + '\n');
