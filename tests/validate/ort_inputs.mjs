// ort_inputs.mjs: the input tensors the validation scripts feed ONNX Runtime (run_ort.mjs,
// ort_nodes.mjs): deterministic data, so two runs see the same values.

// Floats from a fixed xorshift sequence in [0, 1); integers 0 and booleans false unless `fill`.
let seed = 0x2545f491;
export function fillTensor(ort, type, shape, fill, fail) {
  const n = shape.reduce((a, b) => a * b, 1);
  const arrays = {
    float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array,
    int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, bool: Uint8Array,
  };
  const Ctor = arrays[type];
  if (!Ctor) fail(`input element type ${type} is not supported`);
  const data = new Ctor(n);
  if (type === 'float32' || type === 'float64') {
    for (let i = 0; i < n; i++) {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      data[i] = fill ?? (seed >>> 0) / 4294967296;
    }
  } else if (fill !== undefined) {
    data.fill(type === 'int64' ? BigInt(fill) : fill);
  }
  return new ort.Tensor(type, data, shape);
}

// The feeds of `session` from {NAME: SHAPE or {shape, fill}}; every graph input must be given.
export function makeFeeds(ort, session, inputs, fail) {
  const feeds = {};
  const metadata = Object.fromEntries(session.inputMetadata.map((m) => [m.name, m]));
  for (const [name, entry] of Object.entries(inputs)) {
    if (!metadata[name]) fail(`the model has no input '${name}'`);
    const [shape, fill] = Array.isArray(entry) ? [entry, undefined] : [entry.shape, entry.fill];
    feeds[name] = fillTensor(ort, metadata[name].type, shape, fill, fail);
  }
  for (const name of session.inputNames)
    if (!feeds[name]) fail(`no shape given for input '${name}'`);
  return feeds;
}
