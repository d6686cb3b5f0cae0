#!/bin/sh
# install_ort.sh DEST: installs the onnxruntime-node pinned by package.json/package-lock.json (this
# folder) into DEST/node_modules with `npm ci --ignore-scripts`. The package's install script
# would download a GPU build; the CPU library it needs ships inside the package
# (bin/napi-v*/linux/x64/libonnxruntime.so.1), so the script is skipped. Nothing is installed into
# the repository. A no-op when DEST already holds the pinned version (same lock file).
set -eu
src=$(cd "$(dirname "$0")" && pwd)
dest=$1
mkdir -p "$dest"
if [ -f "$dest/node_modules/onnxruntime-node/package.json" ] && [ -f "$dest/package-lock.json" ] &&
   cmp -s "$src/package-lock.json" "$dest/package-lock.json"; then
  exit 0
fi
for tool in node npm; do
  command -v $tool >/dev/null 2>&1 || {
    echo "install_ort.sh: '$tool' not found: install Debian's nodejs and npm (make validate-deps)" >&2
    exit 1
  }
done
cp "$src/package.json" "$src/package-lock.json" "$dest/"
echo "Installing onnxruntime-node (tests/validate/package-lock.json) into $dest/node_modules"
if ! (cd "$dest" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error); then
  rm -f "$dest/package-lock.json"  # not installed: the next run tries again
  echo "install_ort.sh: cannot install onnxruntime-node from the npm registry; the runtime" >&2
  echo "validation (make validate, ctest -L runtime) needs it: give this machine access to" >&2
  echo "registry.npmjs.org (or an npm mirror via 'npm config set registry')." >&2
  exit 1
fi
lib=$(ls "$dest"/node_modules/onnxruntime-node/bin/napi-v*/linux/x64/libonnxruntime.so* 2>/dev/null | head -1)
[ -n "$lib" ] || { echo "install_ort.sh: no libonnxruntime.so for linux/x64 in the package" >&2; exit 1; }
