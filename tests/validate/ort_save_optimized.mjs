// ort_save_optimized.mjs: the graph ONNX Runtime really runs, as its session option
// optimizedModelFilePath writes it.
//
//   node ort_save_optimized.mjs '{"model": "m.onnx", "out": "m.all.onnx", "level": "all",
//                                 "ort": "BUILD/validate/node_modules"}'
//
// One intra-op thread, sequential, like run_ort.mjs; nothing is run.
import {createRequire} from 'node:module';
import path from 'node:path';

const spec = JSON.parse(process.argv[2] ?? '{}');
if (!spec.model || !spec.out || !spec.ort) {
  process.stderr.write('usage: ort_save_optimized.mjs \'{"model": M, "out": O, "ort": DIR}\'\n');
  process.exit(2);
}
const ort = createRequire(path.join(path.resolve(spec.ort), 'x.js'))('onnxruntime-node');
await ort.InferenceSession.create(spec.model, {
  graphOptimizationLevel: spec.level ?? 'all',
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  optimizedModelFilePath: path.resolve(spec.out),
});
