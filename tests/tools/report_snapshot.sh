#!/usr/bin/env bash
# Fingerprints of cctx's reports on every .onnx file on the machine, for proving a change neutral
# ("Refactors are proven neutral", docs/design/style.md): run it before and after, then diff.
#   tests/tools/report_snapshot.sh build/bin/cctx /tmp/before.txt [FORMAT...]
# FORMAT: json (default), csv, table. One line per model and format: md5 of stdout, exit code.
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
    "$cctx" analyze "$model" --format "$f" > "$tmp" 2>/dev/null
    rc=$?
    # Reports name the plugins' and profiles' paths: a copy of the build elsewhere is the same.
    sum=$(sed "s|$prefix/|<prefix>/|g" "$tmp" | md5sum | cut -d' ' -f1)
    echo "$f $rc $sum ${model#"$repo"/}"
  done
done > "$out"
echo "$(wc -l < "$out") reports fingerprinted in $out"
