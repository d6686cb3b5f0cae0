#!/usr/bin/env python3
"""Fuzz target for the cctx Python API (tests/fuzz/README.md): from an integer seed, random calls on
one or several ComputeContexts (random profiles; models that analyse, models whose compute fails,
bytes that are no model, a missing path), on the module's functions, and from threads sharing one
context. Invariants: only cctx.Error, IndexError, TypeError, ValueError (OSError where a path is
involved) are raised; a failed compute leaves the context as it was; a getter gives what it gave
before and what a fresh context gives after the same compute; while another thread computes, the
old or a new analysis, nothing else; peaks and evaluations are non-negative.

  fuzz_python.py --seconds S [--start-seed K]   seeds K, K+1, ... for S seconds (`make fuzz`)
  fuzz_python.py --replay FILE_OR_DIR...        the seed in each file (tests/fuzz/seeds/...)
  fuzz_python.py --child --verbose --seeds K    seed K in this process, each call printed first

A violation prints the seed and the calls and exits 1. Seeds run in child processes: a child that
dies is reported with its seed, which then runs again with --verbose (its last call crashed)."""
import argparse
import json
import os
import pathlib
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

import onnx
import onnx.helper as oh
from onnx import TensorProto

import cctx

ROOT = pathlib.Path(os.environ.get("CCTX_SOURCE_DIR") or pathlib.Path(__file__).resolve().parents[2])
STRICT = "plugins:\n  - name: onnx\nshapes: {strict: true}\n"
PROFILES = [None, STRICT, str(ROOT / "config" / "profiles" / "onnxruntime-cpu-unoptimized.yaml")]
PROFILE_NAMES = ["None", "STRICT", "'config/profiles/onnxruntime-cpu-unoptimized.yaml'"]
BAD_PROFILES = ["inplce: {enabled: true}\n", "shapes: [1, 2\n", str(ROOT / "no-such-profile.yaml"), 42]
U = {"N": 3, "M": 5, "B": 2, "S": 7}  # every symbol of the good models
ALLOWED = (cctx.Error, IndexError, TypeError, ValueError)
WITH_PATH = ALLOWED + (OSError,)
F = TensorProto.FLOAT


class Violation(Exception):
    pass


# ---- models --------------------------------------------------------------------------------------
def make(nodes, x_dims, inits=(), y_dims=None):
    graph = oh.make_graph(nodes, "fuzz", [oh.make_tensor_value_info("X", F, x_dims)],
                          [oh.make_tensor_value_info("Y", F, y_dims)], list(inits))
    return oh.make_model(graph, opset_imports=[oh.make_opsetid("", 17)])


def i64(name, values):
    return oh.make_tensor(name, TensorProto.INT64, [len(values)], values)


def fixed_models():
    huge = [2**40] * 3  # 2**120 elements: the byte count overflows int64, compute fails
    node = oh.make_node
    return {
        "seed": onnx.load(str(ROOT / "examples" / "seed" / "seed.onnx")),
        "nonzero": onnx.load(str(ROOT / "tests" / "cli" / "nonzero.onnx")),  # a data-dependent dim
        "matmul": make([node("MatMul", ["X", "W"], ["H"]), node("Add", ["H", "b"], ["A"]),
                        node("Relu", ["A"], ["Y"])], ["B", 8],
                       [oh.make_tensor("W", F, [8, 16], [0.5] * 128), oh.make_tensor("b", F, [16], [0.0] * 16)],
                       ["B", 16]),
        "reshape": make([node("Reshape", ["X", "s"], ["Y"])], ["N", 4], [i64("s", [-1])]),
        "expand_overflow": make([node("Expand", ["X", "s"], ["Y"])], [1], [i64("s", huge)]),
        "tile_overflow": make([node("Tile", ["X", "r"], ["Y"])], [1, 1, 1], [i64("r", huge)]),
        # fails under STRICT only
        "reshape_two_minus_one": make([node("Reshape", ["X", "s"], ["Y"])], ["N", 4], [i64("s", [-1, -1])]),
    }


def random_model(rng):
    """A chain of 1-6 ops over X of symbolic and fixed dims."""
    dims = [rng.choice(["N", "M", "B", "S", 1, 2, 3]) for _ in range(rng.randint(1, 3))]
    nodes, inits, cur, rank = [], [], "X", len(dims)
    for i in range(rng.randint(1, 6)):
        op, out, attrs, inputs = rng.choice(["Relu", "Sigmoid", "Add", "Mul", "Concat", "Transpose",
                                             "Softmax", "Unsqueeze", "Flatten"]), f"t{i}", {}, [cur]
        if op in ("Add", "Mul", "Concat"):
            inputs = [cur, cur]
            attrs = {"axis": rng.randrange(rank)} if op == "Concat" else {}
        elif op == "Transpose":
            attrs = {"perm": list(range(rank))[::-1]}
        elif op == "Unsqueeze":
            inits.append(i64(f"a{i}", [0]))
            inputs, rank = [cur, f"a{i}"], rank + 1
        elif op == "Flatten":
            attrs, rank = {"axis": 1}, 2
        nodes.append(oh.make_node(op, inputs, [out], **attrs))
        cur = out
    nodes[-1].output[0] = "Y"
    return make(nodes, dims, inits)


class Pool:
    """Models by name: a proto (None: bytes that are no model) and a file."""

    def __init__(self, folder, rng):
        self.folder, self.protos, self.paths = folder, {}, {}
        for name, proto in list(fixed_models().items()) + [("random_model", random_model(rng))]:
            self.add(name, proto, proto.SerializeToString())
        self.add("random_bytes", None, rng.randbytes(rng.randint(0, 64)))
        mutated = bytearray(self.protos["seed"].SerializeToString()[:rng.randint(1, 400)])
        for _ in range(rng.randint(0, 3)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        self.add("mutated_seed", None, bytes(mutated))
        self.paths["missing_path"] = os.path.join(folder, "no-such-dir", "model.onnx")

    def add(self, name, proto, data):
        self.protos[name], self.paths[name] = proto, os.path.join(self.folder, name + ".onnx")
        pathlib.Path(self.paths[name]).write_bytes(data)

    def pick(self, rng):
        """(key, model to pass, whether it is a path). The key names the model and its form,
        which the report names as its source ('<bytes>', '<onnx.ModelProto>' or the path)."""
        if rng.random() < 0.04:  # no model at all
            value = rng.choice([42, None, 1.5, ["seed.onnx"], {"model": 1}])
            return repr(value), value, False
        name = rng.choice(sorted(self.paths))
        forms = ["str", "pathlib"] + (["bytes", "bytearray", "memoryview"] if name in self.protos else [])
        form = rng.choice(forms + ["proto"] * 3 if self.protos.get(name) else forms)
        path = self.paths[name]
        if form in ("str", "pathlib"):
            return f"{name} as {form}", (path if form == "str" else pathlib.Path(path)), True
        if form == "proto":
            return f"{name} as proto", self.protos[name], False
        data = pathlib.Path(path).read_bytes()
        return f"{name} as {form}", {"bytes": data, "bytearray": bytearray(data),
                                     "memoryview": memoryview(data)}[form], False


# ---- values --------------------------------------------------------------------------------------
def assignment(rng):
    """A good assignment, or one with a symbol missing, a negative or huge value, or wrong types."""
    good = {k: rng.randint(1, 1000) for k in U if rng.random() < 0.95}
    return rng.choice([good] * 4 + [{}, {**U, "N": -5}, {**U, "B": 2**70}, {**U, "N": "x"}, "N", None,
                                    {1: 2}, {**U, "M": 1.5}, {**U, "S": True}, [("N", 3)], 42])


def expression(rng, depth=0):
    if depth > 3 or rng.random() < 0.3:
        return rng.choice(["N", "M", "B", "S", str(rng.randint(-5, 99)), str(2**62), "0"])
    a, b = expression(rng, depth + 1), expression(rng, depth + 1)
    return rng.choice([f"{a}+{b}", f"{a}*{b}", f"({a})//({b})", f"({a})%({b})", f"{a}-{b}",
                       f"max({a},{b})", f"min({a},{b})", f"({a}", f"{a}**{b}"])


# What a context's snapshot holds: every getter's answer (`U` gives every symbol one needs).
GETTERS = {
    "memory": lambda c: c.memory, "peak": lambda c: c.peak, "shapes": lambda c: c.shapes,
    "value_tags": lambda c: c.value_tags, "node_tags": lambda c: c.node_tags, "reuse": lambda c: c.reuse,
    "release_after": lambda c: c.release_after, "not_used_after": lambda c: c.not_used_after,
    "warnings": lambda c: c.warnings, "node_memory(0)": lambda c: c.node_memory(0),
    "node_peak_memory(0)": lambda c: c.node_peak_memory(0), "to_json()": lambda c: c.to_json(),
    "to_json([U])": lambda c: c.to_json([U]), "evaluate_peak(U)": lambda c: c.evaluate_peak(U),
    "evaluate_runtime(U)": lambda c: c.evaluate_runtime(U),
}


def check_value(name, v):
    """The invariants of a getter's result."""
    amount = lambda a: (isinstance(a, int) and a >= 0) or isinstance(a, str)  # noqa: E731
    if name == "peak":
        ok = amount(v["total_bytes"]) and (v["node"] is None or v["node"] >= 0)
    elif name.startswith("evaluate_peak"):
        ok = isinstance(v, tuple) and len(v) == 2 and v[0] >= 0 and v[1] >= 0
    elif name.startswith("evaluate_runtime"):
        ok = all(isinstance(v[k], int) and v[k] >= 0 for k in ("bytes", "node", "run_bytes", "session_bytes"))
    elif name == "memory":
        ok = all(amount(row["total_bytes"]) for row in v)
    else:
        ok = not name.startswith("to_json") or json.loads(v)["format"] == "cctx.analysis/1"
    if not ok:
        raise Violation(f"{name} gave an invalid value: {v!r:.300}")


# ---- one seed ------------------------------------------------------------------------------------
class Run:
    def __init__(self, seed, pool, verbose):
        self.rng, self.pool, self.verbose = random.Random(seed), pool, verbose
        self.log, self.contexts = [], []  # contexts: [ComputeContext, profile index, snapshot]
        self.expected = {}  # (profile index, model key) -> a fresh context's snapshot; None: fails

    def note(self, text, quiet=False):
        """Logs a call (`quiet`: printed with --verbose, left out of a violation's report)."""
        if not quiet:
            self.log.append(text)
        if self.verbose:
            print("  " + text, file=sys.stderr, flush=True)

    def call(self, text, fn, allowed=ALLOWED, check=None, quiet=False):
        """('ok', fn()) or ('raised', type name, message); an exception not `allowed` is a violation."""
        self.note(text, quiet)
        try:
            value = fn()
        except allowed as e:
            return ("raised", type(e).__name__, str(e))
        except Exception as e:
            raise Violation(f"{text} raised {type(e).__name__}: {e}") from e
        if check:
            check(value)
        return ("ok", value)

    def snapshot(self, ctx, label):
        self.note(f"(every getter of {label})", quiet=label == "fresh")
        return {name: self.call(f"{label}.{name}", lambda f=f: f(ctx), quiet=True,
                                check=lambda v, n=name: check_value(n, v)) for name, f in GETTERS.items()}

    def expect(self, p, key, model):
        if (p, key) not in self.expected:
            fresh = cctx.ComputeContext(PROFILES[p])
            out = self.call(f"fresh = ComputeContext({PROFILE_NAMES[p]}); fresh.compute({key})",
                            lambda: fresh.compute(model), WITH_PATH)
            self.expected[p, key] = self.snapshot(fresh, "fresh") if out[0] == "ok" else None
        return self.expected[p, key]

    def new_context(self):
        if self.rng.random() < 0.1:
            bad = self.rng.choice(BAD_PROFILES)
            self.call(f"ComputeContext({bad!r})", lambda: cctx.ComputeContext(bad), WITH_PATH)
        p, label = self.rng.randrange(len(PROFILES)), f"ctx{len(self.contexts)}"
        self.note(f"{label} = ComputeContext({PROFILE_NAMES[p]})")
        ctx = cctx.ComputeContext(PROFILES[p])
        snap = self.snapshot(ctx, label)
        if any(o[0] != "raised" or "compute(model) first" not in o[2] for o in snap.values()):
            raise Violation(f"{label}, never computed, answered: {snap!r:.300}")
        self.contexts.append([ctx, p, snap])

    def compare(self, label, got, wanted, what):
        differ = [n for n in GETTERS if got[n] != wanted[n]]
        if differ:
            n = differ[0]
            raise Violation(f"{label}: {differ} differ from {what} ({n}: {got[n]!r:.200} vs "
                            f"{wanted[n]!r:.200})")

    def check_compute(self, label, key, out, expected):
        if (out[0] == "ok") != (expected is not None):
            raise Violation(f"{label}.compute({key}) gave {out!r:.200}, on a fresh context the opposite")

    # -- the operations, each on context i --
    def op_compute(self, i):
        ctx, p, before = self.contexts[i]
        key, model, path = self.pool.pick(self.rng)
        expected = self.expect(p, key, model)
        out = self.call(f"ctx{i}.compute({key})", lambda: ctx.compute(model), WITH_PATH if path else ALLOWED)
        self.check_compute(f"ctx{i}", key, out, expected)
        after = self.snapshot(ctx, f"ctx{i}")
        self.compare(f"ctx{i}", after, expected or before,
                     "a fresh context's after the same compute" if expected else "before the failed compute")
        self.contexts[i][2] = after

    def op_getter(self, i):
        ctx, _, snap = self.contexts[i]
        name = self.rng.choice(sorted(GETTERS))
        out = self.call(f"ctx{i}.{name}", lambda: GETTERS[name](ctx), check=lambda v: check_value(name, v))
        if out != snap[name]:
            raise Violation(f"ctx{i}.{name} gave {out!r:.300}, before {snap[name]!r:.300}")

    def op_node(self, i):
        ctx, _, snap = self.contexts[i]
        n = len(snap["node_tags"][1]) if snap["node_tags"][0] == "ok" else 1
        index = self.rng.choice([self.rng.randrange(max(n, 1)), n, -1, 2**64, "a", None, 1.5])
        name = self.rng.choice(["node_memory", "node_peak_memory"])
        out = self.call(f"ctx{i}.{name}({index!r})", lambda: getattr(ctx, name)(index))
        memory = snap["memory"][1] if snap["memory"][0] == "ok" else []
        if out[0] == "ok" and name == "node_memory" and (index >= len(memory) or out[1] != memory[index]):
            raise Violation(f"ctx{i}.node_memory({index}) is not memory[{index}]")

    def op_assignment(self, i):
        ctx, a = self.contexts[i][0], assignment(self.rng)
        name, arg = self.rng.choice([("evaluate_peak", a), ("evaluate_runtime", a), ("to_json", [a]),
                                     ("to_json", a)])
        self.call(f"ctx{i}.{name}({arg!r})", lambda: getattr(ctx, name)(arg),
                  check=lambda v: check_value(name, v))

    def op_write(self, i):
        ctx, _, snap = self.contexts[i]
        target = self.rng.choice(["copy", "path", "bad_path", 42])
        if target == "copy":  # into a fresh ModelProto: the analysed model replaces its content
            copy = onnx.ModelProto()
            copy.CopyFrom(self.pool.protos["seed"])
            out = self.call(f"ctx{i}.write_to_model(<a copy of seed>)", lambda: ctx.write_to_model(copy))
            if out[0] == "ok" and len(copy.graph.node) != len(snap["node_tags"][1]):
                raise Violation(f"write_to_model wrote {len(copy.graph.node)} nodes, node_tags has "
                                f"{len(snap['node_tags'][1])}")
            return
        path = {"path": os.path.join(self.pool.folder, "written.onnx"),
                "bad_path": os.path.join(self.pool.folder, "no-such-dir", "x.onnx")}.get(target, target)
        out = self.call(f"ctx{i}.write_to_model({path!r})", lambda: ctx.write_to_model(path), WITH_PATH)
        if out[0] == "ok":
            onnx.load(path)

    def op_module(self, _):
        rng, choice = self.rng, self.rng.randrange(3)
        if choice == 0:
            e, a = expression(rng), assignment(rng)
            value = self.call(f"evaluate_expression({e!r}, {a!r})", lambda: cctx.evaluate_expression(e, a))
            simple = self.call(f"simplify_expression({e!r})", lambda: cctx.simplify_expression(e))
            if value[0] == "ok" and simple[0] == "ok":  # simplifying keeps the value
                again = self.call(f"evaluate_expression({simple[1]!r}, {a!r})",
                                  lambda: cctx.evaluate_expression(simple[1], a))
                if again[0] == "ok" and again != value:
                    raise Violation(f"{e!r} is {value[1]}, its simplified {simple[1]!r} is {again[1]}")
        elif choice == 1:
            e = expression(rng)
            bounds = rng.choice([None, {"N": (1, 64)}, {"M": (0, None)}, {"N": (5, 1)}, {"N": 3}, "N",
                                 {"N": ("a", 2)}])
            self.call(f"simplify_expression({e!r}, {bounds!r})", lambda: cctx.simplify_expression(e, bounds))
        else:
            key, model, path = self.pool.pick(rng)
            kw = {"strict_mode": rng.random() < 0.3, "profile": rng.choice(PROFILES)}
            out = self.call(f"cctx.infer_shapes({key}, **{kw})", lambda: cctx.infer_shapes(model, **kw),
                            WITH_PATH if path else ALLOWED)
            if out[0] == "ok" and not isinstance(out[1], onnx.ModelProto):
                raise Violation(f"infer_shapes gave a {type(out[1])}")

    def op_threads(self, i):
        """Writer threads compute 1-3 models on context i while reader threads call its getters,
        and a bystander computes on a context of its own: each getter must give the answer of
        one of the states the context goes through (snapshots taken single-threaded)."""
        ctx, p, before = self.contexts[i]
        jobs = [self.pool.pick(self.rng) for _ in range(self.rng.randint(1, 3))]
        expected = [self.expect(p, key, model) for key, model, _ in jobs]
        states = [before] + [s for s in expected if s is not None]
        # One writer computes the jobs in turn, or two race (the final state is either's).
        writers = [range(len(jobs))] if len(jobs) == 1 or self.rng.random() < 0.5 else \
            [[0], range(1, len(jobs))]
        done, problems = threading.Event(), []

        def writer(indices, label, target):
            for j in indices:
                key, model, _ = jobs[j]
                out = self.call(f"[writer] {label}.compute({key})", lambda: target.compute(model), WITH_PATH)
                self.check_compute(label, key, out, expected[j])

        def bystander():
            own = cctx.ComputeContext(PROFILES[p])
            writer([0], "bystander", own)
            if expected[0]:
                self.compare("bystander", self.snapshot(own, "bystander"), expected[0], "a fresh context's")

        def reader(rng):
            calls = 0
            while not done.is_set() or calls < 5:
                name, calls = rng.choice(sorted(GETTERS)), calls + 1
                out = self.call(f"[reader] ctx{i}.{name}", lambda: GETTERS[name](ctx), quiet=True)
                if all(out != s[name] for s in states):
                    raise Violation(f"[reader] ctx{i}.{name} gave {out!r:.300}: not the old or a new analysis")

        def guarded(fn, *args):
            try:
                fn(*args)
            except Exception as e:  # a Violation, or a bug of this script: both end the run
                problems.append(str(e) if isinstance(e, Violation) else f"{type(e).__name__}: {e}")

        self.note(f"threads on ctx{i}: writers computing {[[jobs[j][0] for j in w] for w in writers]}")
        readers = [threading.Thread(target=guarded, args=(reader, random.Random(self.rng.random())))
                   for _ in range(self.rng.randint(1, 3))]
        threads = [threading.Thread(target=guarded, args=(writer, w, f"ctx{i}", ctx)) for w in writers]
        threads += [threading.Thread(target=guarded, args=(bystander,))] if self.rng.random() < 0.3 else []
        for t in readers + threads:
            t.start()
        for t in threads:
            t.join()
        done.set()
        for t in readers:
            t.join()
        if problems:
            raise Violation("; ".join(problems[:3]))
        after = self.snapshot(ctx, f"ctx{i}")
        if all(any(after[n] != s[n] for n in GETTERS) for s in states):
            raise Violation(f"after the threads, ctx{i} holds none of the analyses computed")
        self.contexts[i][2] = after

    def run(self):
        for _ in range(self.rng.randint(1, 3)):
            self.new_context()
        ops = [self.op_compute] * 6 + [self.op_getter] * 3 + [self.op_node, self.op_assignment] * 2 + \
              [self.op_write, self.op_module, self.op_module, self.op_threads]
        for _ in range(self.rng.randint(4, 20)):
            if self.rng.random() < 0.05 and len(self.contexts) < 4:
                self.new_context()
            self.rng.choice(ops)(self.rng.randrange(len(self.contexts)))


def run_seed(seed, verbose):
    """None, or the report of a violated invariant."""
    with tempfile.TemporaryDirectory(prefix="fuzz_python.") as folder:
        run = Run(seed, Pool(folder, random.Random(-seed - 1)), verbose)
        try:
            run.run()
        except Violation as v:
            return (f"fuzz_python: seed {seed}: {v}\ncall sequence (STRICT = {STRICT!r}, U = {U}):\n" +
                    "\n".join("  " + c for c in run.log))
    return None


# ---- runner --------------------------------------------------------------------------------------
def child(seeds, until, verbose):
    """Runs seeds in this process until time `until` (0: no limit), each announced on stdout first
    so that the parent can name the seed a crash interrupted. Exit 1 on a violation."""
    for seed in seeds:
        if until and time.time() > until:
            break
        print(f"@@seed {seed}", flush=True)
        try:
            report = run_seed(seed, verbose)
        except Exception:  # a bug of this script: its seed, to debug it
            report = f"fuzz_python: seed {seed}: the fuzzer itself raised\n{traceback.format_exc()}"
        if report:
            print(report, file=sys.stderr, flush=True)
            return 1
    return 0


def spawn(args, timeout):
    """The number of seeds a child ran, or None when it failed (and that is reported)."""
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"] + args,
                           stdout=subprocess.PIPE, text=True, timeout=timeout)
        code, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:  # run() has killed the child; the output is bytes
        code, out = f"hung for {timeout:.0f} s", (e.stdout or b"").decode()
    seeds = [int(line.split()[1]) for line in out.splitlines() if line.startswith("@@seed ")]
    if code == 0:
        return len(seeds)
    if code != 1 and "--verbose" not in args:  # on exit 1 the child has printed the violation
        how = signal.Signals(-code).name if isinstance(code, int) and code < 0 else code
        seed = seeds[-1] if seeds else None
        print(f"fuzz_python: seed {seed}: the interpreter died ({how}). The seed again, each call "
              "printed before it is made (with threads it may not crash again):", file=sys.stderr, flush=True)
        spawn(["--verbose", "--seeds", str(seed)], 120)
    return None


def seeds_of(paths):
    """The integer of each file: its first line that is not empty or a # comment. A folder
    stands for its files but README*."""
    seeds = []
    for path in map(pathlib.Path, paths):
        for f in sorted(f for f in path.iterdir() if not f.name.startswith("README")) if path.is_dir() \
                else [path]:
            lines = [ln.strip() for ln in f.read_text().splitlines()]
            seeds.append(int(next(ln for ln in lines if ln and ln[0] != "#")))
    return seeds


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, help="run seeds for this long")
    parser.add_argument("--start-seed", type=int, default=None, help="the first seed (default: from the clock)")
    parser.add_argument("--replay", nargs="+", metavar="FILE", help="seed files, or folders of them")
    parser.add_argument("--child", action="store_true", help="run in this process: --seeds, or "
                        "--count seeds from --start-seed until time --until")
    parser.add_argument("--seeds", nargs="*", type=int, default=[])
    parser.add_argument("--count", type=int, default=0)
    parser.add_argument("--until", type=float, default=0)
    parser.add_argument("--verbose", action="store_true", help="print each call before making it")
    args = parser.parse_args()
    start = time.time()
    first = args.start_seed if args.start_seed is not None else int(start * 1000) % 10**9
    if args.child:
        return child(args.seeds or range(first, first + args.count), args.until, args.verbose)
    if args.replay:
        done = spawn(["--seeds"] + [str(s) for s in seeds_of(args.replay)], 600)
        if done is None:
            return 1
    elif args.seconds is not None:
        print(f"fuzz_python: seeds from {first} for {args.seconds:g} s", flush=True)
        done, until = 0, start + args.seconds
        while time.time() < until:  # a fresh interpreter every 500 seeds
            runs = spawn(["--start-seed", str(first + done), "--count", "500", "--until", str(until)],
                         until - time.time() + 300)
            if runs is None:
                return 1
            done += runs
    else:
        parser.error("give --seconds or --replay")
    print(f"Done {done} runs in {time.time() - start:.0f} second(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
