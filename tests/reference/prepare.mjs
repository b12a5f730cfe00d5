// SPDX-License-Identifier: Apache-2.0
// Expands tiktoken's compact encoders (node_modules/tiktoken/encoders/*.json) into the
// official .tiktoken rank files ("base64 rank" per line) and checks them against the
// SHA-256 that openai/harmony and tiktoken pin. Run by scripts/setup.sh --dev.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const pinned = {
  o200k_base: '446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d',
  cl100k_base: '223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7',
};
for (const [name, sha] of Object.entries(pinned)) {
  const enc = JSON.parse(readFileSync(path.join(here, 'node_modules/tiktoken/encoders', name + '.json')));
  const ranks = [];
  for (const line of enc.bpe_ranks.split('\n')) {
    if (!line) continue;
    const [, offset, ...tokens] = line.split(' ');
    tokens.forEach((t, i) => ranks.push([t, Number(offset) + i]));
  }
  ranks.sort((a, b) => a[1] - b[1]);
  const text = ranks.map(([t, r]) => `${t} ${r}\n`).join('');
  const got = createHash('sha256').update(text).digest('hex');
  if (got !== sha) {
    console.error(`${name}: sha256 ${got}, expected ${sha}`);
    process.exit(1);
  }
  writeFileSync(path.join(here, name + '.tiktoken'), text);
  console.log(`${name}.tiktoken: ${ranks.length} ranks, sha256 ok`);
}
