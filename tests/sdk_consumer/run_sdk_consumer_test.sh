#!/usr/bin/env bash
# The vendor workflow end to end: install cctx into a temporary prefix, build the example vendor
# plugin out of tree against the installed SDK only, check it exports only its entry symbol, load
# it through a profile with the installed cctx, and analyse a model that uses every one of its ops;
# then combine it with the folder's declarative ops (declarative.yaml, no C++) in one profile.
#
#   run_sdk_consumer_test.sh <cctx build dir> <cctx source dir>
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source/plugins/example_vendor" -B "$work/vendor" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
cmake --build "$work/vendor" > "$work/build.log"
plugin="$work/vendor/libexample_vendor.so"
test -f "$plugin" || { echo "FAIL: $plugin was not built"; exit 1; }

exports=$(nm -D --defined-only "$plugin" | awk '{print $NF}')
if [ "$exports" != "cctx_plugin_v1" ]; then
  echo "FAIL: the plugin exports: $exports"; exit 1
fi

cat > "$work/vendor.yaml" <<YAML
profile: vendor
plugins:
  - name: onnx
  - path: vendor/libexample_vendor.so
YAML
out="$work/report.json"
"$work/prefix/bin/cctx" analyze "$source/plugins/example_vendor/example_model.onnx" \
  --profile "$work/vendor.yaml" --format json --eval batch=2 --eval seq=128 --eval Compact_6_o0_d0=1000 > "$out"

/usr/bin/python3 - "$out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
values = doc["values"]
def check(name, expected, got):
    if got != expected:
        sys.exit(f"FAIL: {name}: expected {expected!r}, got {got!r}")
check("g shape (FusedGelu)", ["batch", "seq", 64], values["g"]["shape"])
check("o shape (FlashAttention)", ["batch", 4, "seq", 16], values["o"]["shape"])
check("flat shape (View)", ["4*batch*seq", 16], values["flat"]["shape"])
check("p shape (Pack v2, factor 4)", ["batch", 4, "seq", 4], values["p"]["shape"])
c = values["c"]["shape"]
check("c shape (Compact): one fresh dim", True, len(c) == 1 and c[0].startswith("Compact_"))
nodes = {n["op_type"]: n for n in doc["nodes"]}
check("FusedGelu reuses Relu's dying buffer", "may_reuse", nodes["FusedGelu"]["inplace"][0]["mode"])
check("View aliases its input", "alias", nodes["View"]["inplace"][0]["mode"])
check("FlashAttention scratch", "512*batch*seq", nodes["FlashAttention"]["peak_scratch_bytes"])
check("warnings", [], doc["warnings"])
origins = [s["origin"] for s in doc["symbols"] if s["name"].startswith("Compact_")]
check("fresh symbol origin names the node", True, bool(origins) and "Compact" in origins[0])
print("sdk consumer: OK;", len(doc["nodes"]), "nodes; peak", doc["peak"]["total_bytes"])
PY

# `cctx plugins` lists the vendor plugin with its domain and rule versions.
"$work/prefix/bin/cctx" plugins --profile "$work/vendor.yaml" --format json > "$work/plugins.json"
/usr/bin/python3 - "$work/plugins.json" <<'PY'
import json, sys
plugins = {p["name"]: p for p in json.load(open(sys.argv[1]))}
vendor = plugins["example_vendor"]
assert vendor["domains"] == [{"domain": "com.example", "min_version": 1, "max_version": 2}], vendor["domains"]
assert vendor["ops"]["com.example::Pack"]["shape"] == [1, 2], vendor["ops"]["com.example::Pack"]
print("cctx plugins: OK")
PY

# Both ways in one profile: declarative.yaml (com.example.simple, no C++) extended with the C++
# plugin (com.example). Each model analyses without a warning, and `cctx plugins` lists both.
cat > "$work/both.yaml" <<YAML
extends: $source/plugins/example_vendor/declarative.yaml
plugins:
  - path: vendor/libexample_vendor.so
YAML
"$work/prefix/bin/cctx" analyze "$source/plugins/example_vendor/declarative_model.onnx" \
  --profile "$work/both.yaml" --format json > "$work/declarative.json"
"$work/prefix/bin/cctx" analyze "$source/plugins/example_vendor/example_model.onnx" \
  --profile "$work/both.yaml" --format json > "$work/both_example.json"
"$work/prefix/bin/cctx" plugins --profile "$work/both.yaml" --format json > "$work/both_plugins.json"
/usr/bin/python3 - "$work/declarative.json" "$work/both_example.json" "$work/both_plugins.json" <<'PY'
import json, sys
declarative, example, plugins = (json.load(open(p)) for p in sys.argv[1:4])
def check(name, expected, got):
    if got != expected:
        sys.exit(f"FAIL: {name}: expected {expected!r}, got {got!r}")
check("hs shape (SplitHeads, declarative)", ["batch", "seq", 4, 16], declarative["values"]["hs"]["shape"])
check("declarative model warnings", [], declarative["warnings"])
check("o shape (FlashAttention, with both)", ["batch", 4, "seq", 16], example["values"]["o"]["shape"])
check("example model warnings", [], example["warnings"])
check("plugins", ["onnx", "example_vendor", "profile:both.yaml"], [p["name"] for p in plugins])
check("declarative domain", ["com.example.simple"], [d["domain"] for d in plugins[2]["domains"]])
print("both ways: OK")
PY
