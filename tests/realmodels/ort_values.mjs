// ort_values.mjs: every graph output's dims and element type after one ONNX Runtime run.
// suite.py hands it a copy of a model in which every main-graph node output is a graph output,
// so this is the runtime's actual size of every value. Prints one JSON line
// {"values": {NAME: {"dims": [...], "type": "float32"}}, "ms": run time}; a run that fails prints
// {"error": MESSAGE} and exits 3 (a model ONNX Runtime rejects at that assignment is a result).
//
//   node ort_values.mjs '{"model": "m.onnx", "inputs": {"x": [1, 3, 17, 31]},
//                         "ort": "BUILD/validate/node_modules"}'
//
// Graph optimisation off (constant folding or fusion would remove values), one thread.
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';

import {makeFeeds} from '../validate/ort_inputs.mjs';

// The spec, or @FILE holding it (ONNX's test data can be too large for a command line).
const arg = process.argv[2] ?? '{}';
const spec = JSON.parse(arg.startsWith('@') ? fs.readFileSync(arg.slice(1), 'utf8') : arg);
const fail = (msg) => {
  process.stderr.write(`ort_values: ${msg}\n`);
  process.exit(2);
};
if (!spec.model || !spec.inputs || !spec.ort)
  fail('usage: ort_values.mjs \'{"model": M, "inputs": {NAME: SHAPE}, "ort": DIR}\'');
const ort = createRequire(path.join(path.resolve(spec.ort), 'x.js'))('onnxruntime-node');

let session;
try {
  session = await ort.InferenceSession.create(spec.model, {
    graphOptimizationLevel: 'disabled',
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    logSeverityLevel: 3,  // errors only: a failed run is reported in the JSON line
  });
} catch (e) {
  process.stdout.write(JSON.stringify({error: `session: ${e.message ?? e}`}) + '\n');
  process.exit(3);
}
// {shape, data} entries (ONNX's test data) are fed as given; the rest as ort_inputs.mjs makes them.
const given = Object.fromEntries(Object.entries(spec.inputs).filter(([, e]) => e.data !== undefined));
const made = Object.fromEntries(Object.entries(spec.inputs).filter(([, e]) => e.data === undefined));
const types = Object.fromEntries(session.inputMetadata.map((m) => [m.name, m.type]));
const arrays = {
  float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array,
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, bool: Uint8Array,
  uint32: Uint32Array, uint64: BigUint64Array,
};
const feeds = {};
for (const [name, e] of Object.entries(given)) {
  const type = types[name];
  let data;
  if (type === 'string') data = e.data.map(String);
  else if (type === 'int64' || type === 'uint64') data = arrays[type].from(e.data.map((x) => BigInt(x)));
  else if (arrays[type]) data = arrays[type].from(e.data.map(Number));
  else fail(`input ${name}: element type ${type} is not supported`);
  feeds[name] = new ort.Tensor(type, data, e.shape);
}
for (const name of session.inputNames) {
  if (!feeds[name] && !made[name] && !given[name]) fail(`no shape given for input '${name}'`);
}
const madeFeeds = {};
if (Object.keys(made).length) {
  // makeFeeds wants every input: hand it the given ones' shapes and replace them afterwards.
  const all = {...made};
  for (const [name, e] of Object.entries(given)) all[name] = e.shape;
  Object.assign(madeFeeds, makeFeeds(ort, session, all, fail));
}
for (const [name, t] of Object.entries(madeFeeds)) if (!feeds[name]) feeds[name] = t;
let results;
const started = performance.now();
try {
  results = await session.run(feeds);
} catch (e) {
  process.stdout.write(JSON.stringify({error: `run: ${e.message ?? e}`}) + '\n');
  process.exit(3);
}
const ms = performance.now() - started;
const values = {};
for (const [name, tensor] of Object.entries(results))
  values[name] = {dims: Array.from(tensor.dims, Number), type: tensor.type};
process.stdout.write(JSON.stringify({values, ms}) + '\n');
await session.release?.();
