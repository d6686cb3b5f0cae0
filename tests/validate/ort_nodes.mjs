// ort_nodes.mjs: what ONNX Runtime's profiler reports for each node of one run: its output
// bytes and shapes. Prints one JSON line {"nodes": [{name, op, index, output_bytes,
// output_shapes}]}, in run order.
//
//   node ort_nodes.mjs '{"model": "m.onnx", "inputs": {"x": [1, 3, 224, 224]},
//                        "ort": "BUILD/validate/node_modules", "work": "DIR"}'
//
// Same session options as run_ort.mjs's no-arena mode (graph optimisation off, one thread,
// sequential), plus enableProfiling; the profile file is written into "work" and removed.
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';

import {makeFeeds} from './ort_inputs.mjs';

const spec = JSON.parse(process.argv[2] ?? '{}');
const fail = (msg) => {
  process.stderr.write(`ort_nodes: ${msg}\n`);
  process.exit(2);
};
if (!spec.model || !spec.inputs || !spec.ort || !spec.work)
  fail('usage: ort_nodes.mjs \'{"model": M, "inputs": {NAME: SHAPE}, "ort": DIR, "work": DIR}\'');
const ort = createRequire(path.join(path.resolve(spec.ort), 'x.js'))('onnxruntime-node');

fs.mkdirSync(spec.work, {recursive: true});
const prefix = path.join(path.resolve(spec.work), `ort_nodes_${process.pid}`);
const session = await ort.InferenceSession.create(spec.model, {
  graphOptimizationLevel: 'disabled',
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  enableCpuMemArena: false,
  enableMemPattern: false,
  enableProfiling: true,
  profileFilePrefix: prefix,
});
await session.run(makeFeeds(ort, session, spec.inputs, fail));
session.endProfiling();
await session.release?.();

const dir = path.dirname(prefix);
const files = fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(prefix)) && f.endsWith('.json'));
if (files.length !== 1) fail(`expected one profile file ${prefix}_*.json, found ${files.length}`);
const file = path.join(dir, files[0]);
const events = JSON.parse(fs.readFileSync(file, 'utf8'));
fs.rmSync(file);

// One "Node" event per kernel run, named "<node name>_kernel_time" (there are also _fence
// events in some builds).
const nodes = events.filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time')).map((e) => ({
  name: e.name.slice(0, -'_kernel_time'.length),
  op: e.args.op_name,
  index: Number(e.args.node_index),
  output_bytes: Number(e.args.output_size),
  output_shapes: (e.args.output_type_shape ?? []).map((t) => Object.values(t)[0]),
}));
process.stdout.write(JSON.stringify({nodes}) + '\n');
