// Worker of bench/bench_browser.py's open-tokenizer figures: the site's engine (engine.js)
// counts the same texts with an open model's tokenizer (bert-base-uncased, xlm-roberta) and
// with the tiktoken WASM encoder (cl100k_base, from JS), in this one worker, run by run in
// turn. Started from bench.html with one message {texts: {name: text}, families, runs};
// answers one message {ok, result} | {ok: false, error}.
//
// The tables come as a chosen model brings them (engine.ensureTokenizer: fetched from the
// site, hash-checked in Python). The page's own path is a protocol request (load, analyze,
// drop through answerRequest, as the worker answers it). The sizing interface
// (tokenizer.count) and a fresh tokenizer (a new one, its word cache empty) have no request:
// they are reached through the modules' public functions (load(), count(), REGISTRY.provide),
// called by pyimport, with no Python source in this file. Each call copies the JS string
// into Python, as a load request does: the timings include it.
import { answerRequest, bootEngine, fetchEncoderTable, initTiktoken, makeEncoder } from "./core/engine.js";

// The module whose load() builds each family's tokenizer from its tables.
const MODULES = { "bert-base-uncased": "ragchunk.tokenizers.wordpiece", "xlm-roberta": "ragchunk.tokenizers.unigram" };

const clock = () => performance.now() / 1000;

function timed(action) {
  const started = clock();
  const value = action();
  return [clock() - started, value];
}

async function timedAsync(action) {
  const started = clock();
  const value = await action();
  return [clock() - started, value];
}

async function request(engine, type, payload, document = null) {
  const reply = await answerRequest(engine, { type, payload, document }, () => {});
  if (!reply.ok) throw new Error(`${type}: ${JSON.stringify(reply)}`);
  return reply.result;
}

/** The calculator's request for a pasted text (load, analyze with the model's tokenizer, drop): its token count. */
async function analyze(engine, encoding, text) {
  const { doc } = await request(engine, "load", { name: "bench.txt" }, text);
  try {
    return (await request(engine, "analyze", { doc, encoding, chunk_size: 512, overlap: 64, count: 5 })).tokens;
  } finally {
    await request(engine, "drop", { doc });
  }
}

/** What choosing a model of `family` fetched: its tables' resource-timing entries, summed. */
function tableTransfer(family) {
  const entries = performance.getEntriesByType("resource").filter((e) => e.name.includes("/assets/tables/"));
  return {
    files: entries.map((e) => e.name.split("/").pop()),
    transfer_bytes: entries.reduce((sum, e) => sum + e.transferSize, 0),
    body_bytes: entries.reduce((sum, e) => sum + e.decodedBodySize, 0),
    encoded_bytes: entries.reduce((sum, e) => sum + e.encodedBodySize, 0),
  };
}

async function measure({ texts, families, runs }) {
  const [boot, engine] = await timedAsync(() => bootEngine());
  await initTiktoken();
  const encoder = makeEncoder(await fetchEncoderTable("cl100k_base"));
  const result = { boot, families: {}, wasm: {} };
  // One encode of `text` by the WASM encoder from JS, kept in result.wasm[name] too.
  const reference = (name, text) => {
    const seconds = timed(() => encoder.encode_ordinary(text).length)[0];
    (result.wasm[name] ??= []).push(seconds);
    return seconds;
  };
  const registry = engine.pyodide.pyimport("ragchunk.tokenizers").REGISTRY;
  const modules = {};
  for (const family of families) {
    performance.clearResourceTimings();
    const [fetched] = await timedAsync(() => engine.ensureTokenizer(family));
    const [imported, module] = timed(() => engine.pyodide.pyimport(MODULES[family]));
    const [built, first] = timed(() => module.load());
    first.destroy();
    modules[family] = module;
    result.families[family] = { tables: { ...tableTransfer(family), fetched, imported, built }, texts: {} };
  }
  for (const text of Object.values(texts)) encoder.encode_ordinary(text); // compiled and warm, as a page has it

  // Each measured step sits between two reference encodes of the same text; the mean of the
  // two is its own reference, so a change of the machine's load hits both sides alike.
  for (let run = 0; run < runs; run++) {
    for (const [name, text] of Object.entries(texts)) {
      const wasmTokens = encoder.encode_ordinary(text).length;
      for (const family of families) {
        const figures = (result.families[family].texts[name] ??= { wasm_tokens: wasmTokens, steps: {}, build: [] });
        const steps = figures.steps;
        const step = (key, seconds, before, after) => {
          (steps[key] ??= { seconds: [], reference: [] }).seconds.push(seconds);
          steps[key].reference.push((before + after) / 2);
        };
        let before = reference(name, text);
        const [build, tokenizer] = timed(() => modules[family].load());
        figures.build.push(build);
        const [cold, coldCount] = timed(() => tokenizer.count(text));
        let after = reference(name, text);
        step("count_cold", cold, before, after);
        before = after;
        const [warm, warmCount] = timed(() => tokenizer.count(text));
        after = reference(name, text);
        step("count_warm", warm, before, after);
        tokenizer.destroy();

        // The page's path with a fresh tokenizer: the registry hands out this one next.
        const fresh = modules[family].load();
        registry.provide(family, () => fresh);
        before = after;
        const [pageCold, pageColdCount] = await timedAsync(() => analyze(engine, family, text));
        after = reference(name, text);
        step("analyze_cold", pageCold, before, after);
        before = after;
        const [pageWarm, pageWarmCount] = await timedAsync(() => analyze(engine, family, text));
        after = reference(name, text);
        step("analyze_warm", pageWarm, before, after);
        fresh.destroy();
        const counts = new Set([coldCount, warmCount, pageColdCount, pageWarmCount]);
        if (counts.size !== 1) throw new Error(`${family} on ${name}: counts differ: ${[...counts]}`);
        figures.tokens = coldCount;
      }
    }
  }
  for (const module of Object.values(modules)) module.destroy();
  registry.destroy();
  encoder.free();
  return result;
}

onmessage = async ({ data }) => {
  try {
    postMessage({ ok: true, result: await measure(data) });
  } catch (error) {
    postMessage({ ok: false, error: String(error?.stack ?? error) });
  }
};
