// run_ort.mjs: run one ONNX model under ONNX Runtime (onnxruntime-node, CPU) and measure the heap
// with alloc_counter (LD_PRELOAD). Prints one JSON line.
//
//   LD_PRELOAD=.../libcctx_alloc_counter.so CCTX_ALLOC_REPORT=/tmp/r.txt \
//   node --expose-gc run_ort.mjs '{"model": "m.onnx", "inputs": {"x": [1, 3, 224, 224]},
//                                   "mode": "no-arena", "ort": "BUILD/validate/node_modules"}'
//
// "inputs" maps each graph input to its shape (the element type comes from the session); an
// entry may be {"shape": [...], "fill": 0} to choose the value (default: floats in [0, 1) from a
// fixed seed, integers 0, booleans false). "mode" is "arena" (enableCpuMemArena and
// enableMemPattern on, ONNX Runtime's defaults) or "no-arena" (both off). "bind_outputs" maps
// output names to input names: each such output is pre-allocated as that input's own tensor, so
// ONNX Runtime writes it there (as onnxruntime-genai binds each present KV cache to its past's
// buffer with past_present_share_buffer); the other outputs are allocated by ONNX Runtime.
// "no_pattern": true keeps the arena but turns the memory pattern off; "pattern": true with
// "no-arena" turns the pattern on without the arena (its block is then one malloc: what
// ort_memory_pattern.py reads); "config" passes session
// configuration entries, e.g. {"session.disable_prepacking": "1"}.
//
// Every reading is a line of alloc_counter's report file: the live bytes now and the peak since
// the previous reading (each reading resets the peak). The numbers printed:
//   baseline_bytes  live after ONNX Runtime is loaded, before the session exists
//   session_bytes   live after the session is created, minus baseline (weights, fixed overhead)
//   input_bytes     the input tensors (JS buffers) as created
//   first_run_peak_bytes  peak during run 1 above the live bytes before it
//   arena_after_run1_bytes, arena_growth_bytes
//                   live after run 1, and after runs 1 and 2 (outputs released), minus live before
//                   run 1: what the arena keeps
//   run_bytes       peak during run 3 above the live bytes before it (runs 1 and 2 are warm-ups)
//   output_bytes    the outputs' bytes (onnxruntime-node copies them into JS buffers, so they are
//                   held twice for a moment at the end of a run)
// and, counting only the aligned family (posix_memalign...: ONNX Runtime's CPU allocator, which
// every tensor and kernel buffer comes from, without node's buffers and the output copies):
//   session_tensor_bytes, arena_tensor_growth_bytes, run_tensor_bytes
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';

import {makeFeeds} from './ort_inputs.mjs';

const spec = JSON.parse(process.argv[2] ?? '{}');
const reportFile = process.env.CCTX_ALLOC_REPORT;
const fail = (msg) => {
  process.stderr.write(`run_ort: ${msg}\n`);
  process.exit(2);
};
if (!spec.model || !spec.inputs || !['arena', 'no-arena'].includes(spec.mode))
  fail('usage: run_ort.mjs \'{"model": M, "inputs": {NAME: SHAPE}, "mode": "arena"|"no-arena"}\'');
if (!reportFile || !process.env.LD_PRELOAD?.includes('alloc_counter'))
  fail('run under LD_PRELOAD=libcctx_alloc_counter.so with CCTX_ALLOC_REPORT set');
if (typeof global.gc !== 'function') fail('run node with --expose-gc');

const ortDir = spec.ort ?? process.env.CCTX_ORT_NODE_MODULES;
if (!ortDir) fail('say where onnxruntime-node is installed ("ort" or CCTX_ORT_NODE_MODULES)');
const ort = createRequire(path.join(path.resolve(ortDir), 'x.js'))('onnxruntime-node');

// One reading: signal alloc_counter, which appends its line before kill() returns
// (checked: the line must be there, else the delivery was late and the numbers meaningless).
fs.rmSync(reportFile, {force: true});
let readings = 0;
function read() {
  // With the counter's trace on, a mark between the readings' allocations.
  if (process.env.CCTX_ALLOC_TRACE) process.stderr.write('# read\n');
  process.kill(process.pid, 'SIGUSR2');
  readings += 1;
  const lines = fs.readFileSync(reportFile, 'utf8').trim().split('\n');
  if (lines.length !== readings) fail(`alloc_counter wrote ${lines.length} readings, want ${readings}`);
  const [, live, peak, allocs, alignedLive, alignedPeak, alignedLost] =
      lines[lines.length - 1].split(' ').map(Number);
  if (alignedLost) fail(`alloc_counter lost track of ${alignedLost} aligned blocks`);
  return {live, peak, allocs, alignedLive, alignedPeak};
}

// Let the garbage collector finish: V8 frees ArrayBuffer backing stores (the outputs) on a
// background thread, so collect and wait until the live bytes stop moving.
async function settle() {
  let last = read().live;  // each reading also resets the peaks
  for (let i = 0; i < 20; i++) {
    global.gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const now = read().live;
    if (Math.abs(now - last) < 1024 && i >= 2) return;
    last = now;
  }
}

const options = {
  graphOptimizationLevel: spec.optimization || 'disabled',
  intraOpNumThreads: spec.threads || 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  enableCpuMemArena: spec.mode === 'arena',
  enableMemPattern: spec.mode === 'arena' ? !spec.no_pattern : Boolean(spec.pattern),
};
// SessionOptions' `extra` section passes its dotted keys to AddSessionConfigEntry.
if (spec.config) {
  options.extra = {};
  for (const [key, value] of Object.entries(spec.config)) {
    let node = options.extra;
    const parts = key.split('.');
    for (const part of parts.slice(0, -1)) node = node[part] ??= {};
    node[parts[parts.length - 1]] = String(value);
  }
}

await settle();
const baseline = read();
const session = await ort.InferenceSession.create(spec.model, options);
await settle();
const afterSession = read();

const feeds = makeFeeds(ort, session, spec.inputs, fail);
await settle();
const beforeRun1 = read();

// One run; the reading right after it holds the run's peaks (the outputs are still referenced).
const fetches = spec.bind_outputs ? Object.fromEntries(session.outputNames.map(
                                        (name) => [name, feeds[spec.bind_outputs[name]] ?? null]))
                                  : undefined;
async function run() {
  if (process.env.CCTX_ALLOC_TRACE) process.stderr.write('# run\n');
  const outputs = fetches ? await session.run(feeds, fetches) : await session.run(feeds);
  const reading = read();
  let outputBytes = 0;
  for (const t of Object.values(outputs)) outputBytes += t.data.byteLength ?? 0;
  return {reading, outputBytes};
}

const run1 = await run();
await settle();
const afterRun1 = read();
await run();
await settle();
const afterRun2 = read();
const run3 = await run();

const result = {
  model: spec.model,
  mode: spec.mode,
  inputs: Object.fromEntries(Object.entries(feeds).map(([k, t]) => [k, t.dims])),
  ort_version: ort.env.versions?.node ?? ort.env.versions?.common ?? null,
  baseline_bytes: baseline.live,
  session_bytes: afterSession.live - baseline.live,
  session_tensor_bytes: afterSession.alignedLive - baseline.alignedLive,
  input_bytes: beforeRun1.live - afterSession.live,
  first_run_peak_bytes: run1.reading.peak - beforeRun1.live,
  arena_after_run1_bytes: afterRun1.live - beforeRun1.live,
  arena_growth_bytes: afterRun2.live - beforeRun1.live,
  arena_tensor_growth_bytes: afterRun2.alignedLive - beforeRun1.alignedLive,
  run_bytes: run3.reading.peak - afterRun2.live,
  run_tensor_bytes: run3.reading.alignedPeak - afterRun2.alignedLive,
  run_live_after_bytes: run3.reading.live - afterRun2.live,
  output_bytes: run3.outputBytes,
  run_allocations: run3.reading.allocs,
};
process.stdout.write(JSON.stringify(result) + '\n');
