// Counts o200k tokens (the GPT-4o/GPT-5 tokenizer) of each file given; prints JSON {file: n}.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { readFileSync } from 'node:fs';

const out = {};
for (const f of process.argv.slice(2)) {
  out[f] = encode(readFileSync(f, 'utf8')).length;
}
console.log(JSON.stringify(out));
