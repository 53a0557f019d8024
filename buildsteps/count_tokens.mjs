// Count texts with an encoding's rank table as the page does (npm tiktoken's WASM Tiktoken,
// encode_ordinary), for buildsteps/planner_page.py: the build's Python has no tiktoken.
//   node buildsteps/count_tokens.mjs <encoders/name.json> <texts.json>   prints [counts]
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const require = createRequire(import.meta.url);
const { Tiktoken } = require("tiktoken/lite");
const [table, input] = process.argv.slice(2);
const { bpe_ranks: ranks, special_tokens: special, pat_str: pattern } = JSON.parse(readFileSync(table, "utf8"));
const encoder = new Tiktoken(ranks, special, pattern);
const texts = JSON.parse(readFileSync(input, "utf8"));
console.log(JSON.stringify(texts.map((text) => encoder.encode_ordinary(text).length)));
encoder.free();
