"""`python -m cctx ARGS...` runs the cctx command line with ARGS (see README "The command line").

The command is the `cctx` binary, shipped inside the package (cctx/bin/cctx, next to the
package's plugins and profiles); in a build tree the package is build/python/cctx and the binary
build/bin/cctx. The process is replaced by the binary, so its exit code is the command's.
"""
import os
import sys
from pathlib import Path


def _binary() -> Path:
    here = Path(__file__).resolve().parent
    candidates = (here / "bin" / "cctx", here.parent.parent / "bin" / "cctx")
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    looked = ", ".join(str(p) for p in candidates)
    sys.stderr.write(f"cctx: the cctx binary is not installed with this package (looked in: {looked})\n")
    sys.exit(3)


def main() -> None:
    binary = _binary()
    sys.stdout.flush()
    os.execv(binary, [str(binary), *sys.argv[1:]])


if __name__ == "__main__":
    main()
