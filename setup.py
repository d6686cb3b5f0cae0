"""`pip install .`: builds the cctx Python package with CMake and installs it as one folder.

The folder holds the extension (_cctx), the Python modules, the plugins (lib/cctx/plugins),
cctx's module of ONNX's inference (lib/cctx/libcctx_onnx_library.so), the shipped profiles
(share/cctx/profiles) and the `cctx` binary (bin/cctx, run by `python -m cctx` and by the `cctx`
script pip creates); the extension finds the plugins, the module and the profiles relative to
itself. The CMake build tree is `build/` of the source folder (as `make build` makes it), or
CCTX_BUILD_DIR: after `make build`, `pip install .` only installs. Only the targets the package
needs are built (not the tests), with CMAKE_BUILD_PARALLEL_LEVEL jobs (default: every core).
CMAKE_ARGS adds options to the first configuration. Debian's pip, setuptools, wheel and CMake are
enough; nothing is downloaded.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

SOURCE = Path(__file__).resolve().parent
BUILD_BASE = Path("build") / "pip"
BUILD_BASE.mkdir(parents=True, exist_ok=True)
TARGETS = ["_cctx", "cctx", "cctx_onnx", "cctx_onnx_ml", "cctx_microsoft", "cctx_onnxruntime",
           "cctx_onnx_library"]


def version() -> str:
    text = (SOURCE / "CMakeLists.txt").read_text()
    return re.search(r"project\(\s*cctx\s+VERSION\s+([0-9.]+)", text).group(1)


def run(*command: str) -> None:
    print("+", " ".join(shlex.quote(c) for c in command), flush=True)
    subprocess.run(command, check=True)


class CMakeBuild(build_py):
    """Runs CMake, then copies the installed `python` component into the build folder."""

    def run(self) -> None:
        build = Path(os.environ.get("CCTX_BUILD_DIR", SOURCE / "build")).resolve()
        if not (build / "CMakeCache.txt").exists():
            run("cmake", "-S", str(SOURCE), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                f"-DPYTHON_EXECUTABLE={sys.executable}", *shlex.split(os.environ.get("CMAKE_ARGS", "")))
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        run("cmake", "--build", str(build), "-j", jobs, "--target", *TARGETS)
        with tempfile.TemporaryDirectory() as staging:
            # --strip: the debug info of a RelWithDebInfo tree would make the wheel 150 MB.
            run("cmake", "--install", str(build), "--component", "python", "--prefix", staging,
                "--strip")
            packages = list(Path(staging).glob("lib/python*/*-packages/cctx"))
            if len(packages) != 1:
                sys.exit(f"setup.py: the python component installed no single cctx folder under {staging}")
            target = Path(self.build_lib) / "cctx"
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(packages[0], target, symlinks=False)


class BinaryDistribution(Distribution):
    """The package holds native code: the wheel is tagged for this platform and interpreter."""

    def has_ext_modules(self) -> bool:
        return True

    def has_pure_modules(self) -> bool:  # so that `build` runs build_py (CMakeBuild)
        return True


setup(
    name="cctx",
    version=version(),
    description="Per-node memory of ONNX graphs as formulas in their symbolic dimensions; "
                "symbolic shape inference",
    python_requires=">=3.9",
    install_requires=[],  # onnx (python3-onnx on Debian) is needed at run time; not fetched
    packages=[],  # the package folder comes from CMake (CMakeBuild)
    cmdclass={"build_py": CMakeBuild},
    distclass=BinaryDistribution,
    # setuptools' own files go under the CMake tree's folder, not into the sources.
    options={"build": {"build_base": str(BUILD_BASE)}, "egg_info": {"egg_base": str(BUILD_BASE)}},
    entry_points={"console_scripts": ["cctx=cctx.__main__:main"]},
    zip_safe=False,
)
