"""The package as a user installs it (ctest `python_package_install`).

1. `pip install --no-build-isolation .` into a temporary prefix (Debian's pip, setuptools, wheel;
   --no-index: nothing may be downloaded), reusing the CMake tree given by --build;
2. `cmake --install` of that tree into another prefix;
and from each: the package folder holds the plugins, cctx's module of ONNX's inference, profiles
and binary; every ```python block of the README's "Python" section runs with only that prefix on
sys.path (from the source folder, whose relative model paths the examples use), with nothing on
stderr; `python -m cctx analyze` prints what build/bin/cctx prints; `python -m cctx plugins` loads
the plugins from inside the package; and the package folder still works once moved elsewhere.
"""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time

PYTHON = sys.executable


def run(command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        sys.exit(f"FAIL: {' '.join(map(str, command))} exited {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done


def clean_env(site=None):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CCTX_PLUGIN_PATH")}
    if site is not None:
        env["PYTHONPATH"] = str(site)
    return env


def readme_python_blocks(source: pathlib.Path):
    """The ```python blocks of the README's Python section and of docs/python.md: each must run
    against the installed package."""
    text = (source / "README.md").read_text()
    section = text.split("\n## Python\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    if not blocks:
        sys.exit("FAIL: no ```python block in the README's Python section")
    page = re.findall(r"```python\n(.*?)```", (source / "docs" / "python.md").read_text(), flags=re.S)
    if not page:
        sys.exit("FAIL: no ```python block in docs/python.md")
    return blocks + page


def check_package(site: pathlib.Path, source: pathlib.Path, build: pathlib.Path, label: str):
    package = site / "cctx"
    for part in ("lib/cctx/plugins/libcctx_onnx.so", "lib/cctx/libcctx_onnx_library.so",
                 "share/cctx/profiles/default.yaml", "bin/cctx"):
        if not (package / part).exists():
            sys.exit(f"FAIL ({label}): {package / part} is not installed")
    for i, block in enumerate(readme_python_blocks(source)):
        code = "import cctx, sys; assert cctx.__file__.startswith(%r), cctx.__file__\n" % str(site) + block
        done = run([PYTHON, "-c", code], cwd=source, env=clean_env(site))
        if done.stderr.strip():
            sys.exit(f"FAIL ({label}): README block {i} wrote to stderr:\n{done.stderr}")
        print(f"ok   ({label}) README Python block {i}: {len(done.stdout.splitlines())} lines of output")
    seed = ["analyze", "examples/seed/seed.onnx", "--eval", "N=1,8,32,128"]
    ours = run([PYTHON, "-m", "cctx", *seed], cwd=source, env=clean_env(site)).stdout
    theirs = run([str(build / "bin" / "cctx"), *seed], cwd=source, env=clean_env()).stdout
    if ours != theirs:
        sys.exit(f"FAIL ({label}): python -m cctx analyze differs from build/bin/cctx:\n{ours}")
    plugins = run([PYTHON, "-m", "cctx", "plugins"], cwd="/", env=clean_env(site)).stdout
    if str(package / "lib" / "cctx" / "plugins") not in plugins:
        sys.exit(f"FAIL ({label}): plugins not loaded from the package:\n{plugins}")
    # ONNX's own inference, from the package's libcctx_onnx_library.so (a profile without plugins).
    run([PYTHON, "-m", "cctx", "analyze", "tests/models/cnn.onnx", "--profile", "no-plugins", "-q"],
        cwd=source, env=clean_env(site))
    done = subprocess.run([PYTHON, "-m", "cctx", "analyze", "/nonexistent.onnx"], cwd="/",
                          env=clean_env(site), capture_output=True, text=True)
    if done.returncode != 3 or "no such file" not in done.stderr:
        sys.exit(f"FAIL ({label}): python -m cctx on a missing file: {done.returncode} {done.stderr}")
    print(f"ok   ({label}) python -m cctx analyze/plugins from {package}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True, type=pathlib.Path)
    parser.add_argument("--build", required=True, type=pathlib.Path)
    parser.add_argument("--work", required=True, type=pathlib.Path)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)

    # 1. pip, into a prefix of its own (Debian's pip refuses the system's site-packages: PEP 668).
    env = clean_env()
    env.update(CCTX_BUILD_DIR=str(args.build), CMAKE_BUILD_PARALLEL_LEVEL="1")
    start = time.monotonic()
    run([PYTHON, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
         "--prefix", str(args.work / "pip"), str(args.source)], env=env)
    print(f"ok   pip install . in {time.monotonic() - start:.1f} s (CMake tree {args.build})")
    sites = [p.parent.parent for p in (args.work / "pip").glob("**/cctx/__init__.py")]
    if len(sites) != 1:
        sys.exit(f"FAIL: pip installed {len(sites)} cctx packages under {args.work / 'pip'}")
    check_package(sites[0], args.source, args.build, "pip")
    script = next((args.work / "pip").glob("**/bin/cctx"), None)
    if script is None or "cctx.__main__" not in script.read_text(errors="replace"):
        sys.exit("FAIL: pip made no `cctx` script")

    # The folder moved elsewhere still finds its plugins and profiles.
    moved = args.work / "moved"
    shutil.copytree(sites[0] / "cctx", moved / "cctx", symlinks=True)
    check_package(moved, args.source, args.build, "moved")

    # 2. cmake --install into another prefix.
    run(["cmake", "--install", str(args.build), "--prefix", str(args.work / "cmake")])
    sites = [p.parent.parent for p in (args.work / "cmake").glob("lib/python*/*-packages/cctx/__init__.py")]
    if len(sites) != 1:
        sys.exit(f"FAIL: cmake --install put {len(sites)} cctx packages under {args.work / 'cmake'}")
    check_package(sites[0], args.source, args.build, "cmake --install")
    return 0


if __name__ == "__main__":
    sys.exit(main())
