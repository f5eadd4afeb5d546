// Counts o200k tokens (GPT-4o/GPT-5's tokenizer) of stdin; the encoding module's path is
// the first argument (gpt-tokenizer's, installed into .tools/node by install-test-tools.sh).
const { encode } = await import(process.argv[2]);
let text = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) text += chunk;
console.log(encode(text).length);
