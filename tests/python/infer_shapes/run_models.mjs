// run_models.mjs: loads models into ONNX Runtime (onnxruntime-node, CPU) and runs them on the same
// inputs, for ort_runs_inferred.py. Prints one JSON line: per run, each output's dims, and whether
// the outputs equal those of the reference model (the model before cctx.infer_shapes) bit for bit.
//
//   node run_models.mjs '{"ort": "BUILD/validate/node_modules", "runs": [{"model": "a.onnx",
//        "reference": "orig.onnx", "inputs": {"x": {"type": "float32", "shape": [2, 3]}}}]}'
import {createRequire} from 'node:module';
import path from 'node:path';

const spec = JSON.parse(process.argv[2] ?? '{}');
const ort = createRequire(path.join(path.resolve(spec.ort), 'x.js'))('onnxruntime-node');

// Deterministic data: floats in [0, 1) from a fixed seed; integers and booleans 0 (valid indices).
function makeInput(type, shape) {
  const n = shape.reduce((a, b) => a * b, 1);
  let seed = 12345;
  const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  switch (type) {
    case 'float32': return new ort.Tensor(type, Float32Array.from({length: n}, next), shape);
    case 'float64': return new ort.Tensor(type, Float64Array.from({length: n}, next), shape);
    case 'int64': return new ort.Tensor(type, new BigInt64Array(n), shape);
    case 'int32': return new ort.Tensor(type, new Int32Array(n), shape);
    case 'bool': return new ort.Tensor(type, new Uint8Array(n), shape);
    default: throw new Error(`no input maker for ${type}`);
  }
}

async function run(file, inputs) {
  const options = {graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, executionMode: 'sequential'};
  const session = await ort.InferenceSession.create(file, options);
  const feeds = {};
  for (const [name, i] of Object.entries(inputs)) feeds[name] = makeInput(i.type, i.shape);
  return session.run(feeds);
}

const results = [];
for (const r of spec.runs) {
  const got = await run(r.model, r.inputs);
  const ref = await run(r.reference, r.inputs);
  const outputs = {};
  let same = true;
  for (const [name, t] of Object.entries(got)) {
    outputs[name] = t.dims.map(Number);
    const a = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    const b = ref[name] && Buffer.from(ref[name].data.buffer, ref[name].data.byteOffset, ref[name].data.byteLength);
    if (!b || !a.equals(b)) same = false;
  }
  results.push({model: r.model, outputs, same_as_reference: same});
}
process.stdout.write(JSON.stringify(results) + '\n');
