"""The models of the peers run and their points, taken from the suites that already define them
(imported, not copied, so the points stay the suites' own):

- the real-model suite's catalog and assignments (tests/realmodels/suite.py): tests/models, the
  npm-shipped models, BUILD/realmodels/torch when exported, Debian's libonnx-testdata;
- the decoders of tests/decoders/models at check.py's POINTS (the genai models "standalone":
  copied without genai_config.json, past caches past_sequence_length long, as a plain ONNX
  Runtime caller feeds them);
- the Llama-style benchmark exports of bench_pipeline_scale --generate N (10k nodes, 100k when
  asked), at two points.

Each model: {name, family, path, assignments: [suite-style assignment]}.
"""
import pathlib
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "tests" / "realmodels"))
sys.path.insert(0, str(REPO / "tests" / "decoders"))
import suite  # noqa: E402

FAMILIES = ["repo", "torch", "npm", "onnx testdata", "decoders", "bench export"]


def family(source: str) -> str:
    for f in FAMILIES:
        if source.startswith(f):
            return f
    return source


def decoder_models(work: pathlib.Path):
    import check  # tests/decoders/check.py: its POINTS (imports numpy, present in the venv)
    out = []
    for folder in sorted((REPO / "tests" / "decoders" / "models").iterdir()):
        model = folder / "model.onnx"
        if not model.exists():
            continue
        if (folder / "genai_config.json").exists():
            # cctx reads the configuration next to a model (past caches max_length long);
            # ONNX Runtime's plain caller and the peers know nothing of it.
            alone = work / "decoders" / folder.name
            alone.mkdir(parents=True, exist_ok=True)
            for f in folder.iterdir():
                if f.name != "genai_config.json":
                    shutil.copy2(f, alone / f.name)
            model = alone / "model.onnx"
        points = []
        for label, b, s, p in check.POINTS:
            points.append({"label": label,
                           "symbols": {"batch_size": b, "sequence_length": s,
                                       "past_sequence_length": p, "total_sequence_length": p + s},
                           # An attention mask of ones (ORT's GroupQueryAttention takes the
                           # sequence lengths from it); ids and positions 0.
                           "fill": {"attention_mask": 1}})
        out.append({"name": f"decoder_{folder.name}", "family": "decoders", "path": model,
                    "assignments": points})
    return out


def bench_exports(generator: pathlib.Path, work: pathlib.Path, sizes):
    out = []
    for n in sizes:
        path = work / "scale" / f"llama_{n}.onnx"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run([str(generator), "--generate", str(n), str(path)], check=True)
        out.append({"name": f"bench_export_{n // 1000}k", "family": "bench export", "path": path,
                    "nodes_target": n,
                    "assignments": [{"label": "decode", "symbols": {"batch": 1, "seq": 1,
                                                                    "past_seq": 31}},
                                    {"label": "odd", "symbols": {"batch": 3, "seq": 7,
                                                                 "past_seq": 33}}]})
    return out


def catalog(build: pathlib.Path, runtime: pathlib.Path, work: pathlib.Path, sources, scale):
    models = []
    suite_sources = [s for s in sources if s in ("repo", "torch", "npm", "testdata")]
    for m in suite.catalog(build, suite_sources, quick=False):
        models.append({"name": m["name"], "family": family(m["source"]), "path": m["path"],
                       "assignments": m["assignments"]})
    if "decoders" in sources:
        models += decoder_models(work)
    if "bench" in sources and scale:
        models += bench_exports(runtime / "bin" / "bench_pipeline_scale", work, scale)
    return models
