#!/usr/bin/env bash
# Fingerprints of cctx's reports on every .onnx file on the machine, for proving a change neutral
# ("Refactors are proven neutral", docs/design/style.md): run it before and after, then diff.
#   tests/tools/report_snapshot.sh build/bin/cctx /tmp/before.txt [FORMAT...]
# FORMAT: json (default), csv, table. One line per model and format: md5 of stdout, exit code.
# With CCTX_SNAPSHOT_STDERR=1 the fingerprint covers stderr too (warnings, rule failures);
# CCTX_SNAPSHOT_ARGS adds arguments to every run (e.g. "--profile onnxruntime-cpu").
set -uo pipefail
cctx=$(realpath "${1:?usage: report_snapshot.sh CCTX OUT [FORMAT...]}")
out=${2:?usage: report_snapshot.sh CCTX OUT [FORMAT...]}
shift 2
formats=("$@")
[ ${#formats[@]} -eq 0 ] && formats=(json)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
repo=$(cd "$(dirname "$0")/../.." && pwd)
prefix=$(cd "$(dirname "$cctx")/.." && pwd)
{
  find /usr/share/libonnx-testdata /usr/lib/python3/dist-packages/onnx -name '*.onnx' 2>/dev/null
  find "$repo/examples" "$repo/tests" "$repo/plugins" -name '*.onnx' 2>/dev/null
} | sort | while read -r model; do
  for f in "${formats[@]}"; do
    if [ "${CCTX_SNAPSHOT_STDERR:-0}" = 1 ]; then
      "$cctx" analyze "$model" --format "$f" ${CCTX_SNAPSHOT_ARGS:-} > "$tmp" 2>&1
    else
      "$cctx" analyze "$model" --format "$f" ${CCTX_SNAPSHOT_ARGS:-} > "$tmp" 2>/dev/null
    fi
    rc=$?
    # Reports name the plugins', profiles' and models' paths: a copy of the build or of the
    # checkout elsewhere (a worktree of the commit before a change) is the same.
    sum=$(sed -e "s|$prefix/|<prefix>/|g" -e "s|$repo/|<repo>/|g" "$tmp" | md5sum | cut -d' ' -f1)
    echo "$f $rc $sum ${model#"$repo"/}"
  done
done > "$out"
echo "$(wc -l < "$out") reports fingerprinted in $out"
