"""A private copy of the cctx runtime the peers run uses, made once at its start.

The build tree may be rebuilt while a run of an hour is going on (the binary relinked, a plugin
half-written), so the run works on a snapshot under BUILD/peers/runtime with the layout of the
build tree: the binary finds its plugins in ../lib/cctx/plugins and its profiles in
../share/cctx/profiles relative to itself (README "Two commands"), so copying bin/, lib/cctx/ and
share/cctx/ together is enough. The Python module (build/python/cctx), the allocation counter and
the two benchmark programs are copied too; the npm install of ONNX Runtime (BUILD/validate) is not
rebuilt by cmake and is linked, not copied.
"""
import pathlib
import shutil

FILES = ["bin/cctx", "bin/bench_pipeline_scale", "bin/bench_load_floor",
         "lib/libcctx_alloc_counter.so"]
TREES = ["lib/cctx", "share/cctx", "python/cctx"]


def snapshot(build: pathlib.Path, dst: pathlib.Path) -> pathlib.Path:
    """Copies the runtime of `build` to `dst` (replacing an older copy) and returns `dst`."""
    if dst.exists():
        shutil.rmtree(dst)
    for rel in FILES:
        src = build / rel
        if src.exists():
            (dst / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst / rel)
    for rel in TREES:
        src = build / rel
        if src.exists():
            shutil.copytree(src, dst / rel, ignore=shutil.ignore_patterns("__pycache__"))
    if (build / "validate").exists():
        (dst / "validate").symlink_to((build / "validate").resolve())
    missing = [r for r in FILES[:1] + TREES[:2] if not (dst / r).exists()]
    if missing:
        raise SystemExit(f"peers: {build} has no {', '.join(missing)} (build it first)")
    return dst
