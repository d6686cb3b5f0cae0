// ort_outputs.mjs: the graph outputs of one ONNX Runtime run, their dims and element types. For
// operators ONNX Runtime runs as expanded functions (no profiler event of their own, e.g.
// LinearAttention 27), the outputs are what can be compared. Prints one JSON line
// {"outputs": {NAME: {"dims": [...], "type": "float32"}}}.
//
//   node ort_outputs.mjs '{"model": "m.onnx", "inputs": {"x": [1, 3]}, "ort": "BUILD/validate/node_modules"}'
import {createRequire} from 'node:module';
import path from 'node:path';

import {makeFeeds} from './ort_inputs.mjs';

const spec = JSON.parse(process.argv[2] ?? '{}');
const fail = (msg) => {
  process.stderr.write(`ort_outputs: ${msg}\n`);
  process.exit(2);
};
if (!spec.model || !spec.inputs || !spec.ort)
  fail('usage: ort_outputs.mjs \'{"model": M, "inputs": {NAME: SHAPE}, "ort": DIR}\'');
const ort = createRequire(path.join(path.resolve(spec.ort), 'x.js'))('onnxruntime-node');
const session = await ort.InferenceSession.create(spec.model, {
  graphOptimizationLevel: 'disabled',
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
});
const results = await session.run(makeFeeds(ort, session, spec.inputs, fail));
const outputs = {};
for (const [name, t] of Object.entries(results)) outputs[name] = {dims: t.dims, type: t.type};
console.log(JSON.stringify({outputs}));
