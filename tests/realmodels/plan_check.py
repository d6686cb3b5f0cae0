#!/usr/bin/env python3
"""`cctx plan --check N` on every model of the real-model suite (README.md here, "The static plan").

    /usr/bin/python3 tests/realmodels/plan_check.py --build BUILD [--sources repo,npm,testdata]
        [--checks 10000] [--profiles default,onnxruntime-cpu-no-arena] [--json OUT]

Each model's plan is made under each profile and checked at N assignments (the whole box of its
symbols when that is smaller: corners, crossings of two sizes, random points otherwise). Fails on
any overlap, any buffer outside the arena, any value the plan leaves out, and any model the plan
refuses that `cctx analyze` accepts. Prints the arena against the live-bytes floor over all the
checked assignments, and the models where it is furthest.
"""
import argparse
import concurrent.futures
import json
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import suite  # noqa: E402  (the catalogue of models)


def plan_one(build: pathlib.Path, model: dict, profile: str, checks: int) -> dict:
    cmd = [str(build / "bin" / "cctx"), "plan", str(model["path"]), "--profile", profile,
           "--check", str(checks), "--format", "json", "-q"]
    start = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    row = {"name": model["name"], "profile": profile, "seconds": time.perf_counter() - start,
           "exit": r.returncode}
    if r.returncode == 3:
        # A model cctx cannot read or analyse at all is the suite's business, not the plan's:
        # the plan must not refuse what `cctx analyze` accepts.
        a = subprocess.run([str(build / "bin" / "cctx"), "analyze", str(model["path"]),
                            "--profile", profile, "-q"], capture_output=True, text=True)
        row["analyze_refuses"] = a.returncode != 0
        row["error"] = r.stderr.strip()
        return row
    try:
        doc = json.loads(r.stdout)
    except json.JSONDecodeError:
        row["error"] = (r.stderr or r.stdout).strip()[:300]
        return row
    c = doc["check"]
    row.update(buffers=len(doc["buffers"]), symbols=[s["name"] for s in doc["symbols"]],
               checked=c["checked"], skipped=c["skipped"], overlaps=c["overlaps"],
               outside=c["outside"], failures=c["failures"], ratio=c["arena_over_floor"],
               best_fit=c["best_fit_over_floor"], over_no_reuse=c["over_no_reuse"],
               worst=c.get("worst"))
    return row


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", type=pathlib.Path, required=True)
    p.add_argument("--sources", default="repo,npm,testdata")
    p.add_argument("--checks", type=int, default=10000)
    p.add_argument("--profiles", default="default,onnxruntime-cpu-no-arena")
    p.add_argument("--json", type=pathlib.Path)
    args = p.parse_args()
    models = suite.catalog(args.build, args.sources.split(","), quick=False)
    jobs = [(m, prof) for m in models for prof in args.profiles.split(",")]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        rows = list(pool.map(lambda j: plan_one(args.build, j[0], j[1], args.checks), jobs))

    bad = []
    for row in rows:
        if "error" in row:
            if row.get("analyze_refuses"):
                continue  # neither analyses it: not the plan's failure
            bad.append(f"{row['name']} ({row['profile']}): {row['error']}")
        elif row["overlaps"] or row["outside"] or row["failures"] or row["exit"] != 0:
            bad.append(f"{row['name']} ({row['profile']}): {row['overlaps']} overlaps, "
                       f"{row['outside']} outside; {'; '.join(row['failures'][:2])}")
        elif row["over_no_reuse"]:
            bad.append(f"{row['name']} ({row['profile']}): arena above the no-reuse sum at "
                       f"{row['over_no_reuse']} assignments")
    planned = [r for r in rows if "error" not in r]
    checked = sum(r["checked"] for r in planned)
    # The share within 1.10 over every checked assignment, each model weighted by its count.
    within = sum(r["ratio"]["within_1_10"] * r["checked"] / 100 for r in planned)
    within5 = sum(r["ratio"]["within_1_05"] * r["checked"] / 100 for r in planned)
    symbolic = [r for r in planned if r["symbols"]]
    print(f"plans: {len(planned)} of {len(rows)} model x profile ({len(models)} models, "
          f"{len(symbolic)} with symbols); {checked} assignments checked, "
          f"{sum(r['overlaps'] for r in planned)} overlaps, "
          f"{sum(r['outside'] for r in planned)} outside the arena")
    if checked:
        print(f"arena / live-bytes floor: within 1.10 at {100 * within / checked:.1f}% of the "
              f"assignments, within 1.05 at {100 * within5 / checked:.1f}%")
    worst = sorted(planned, key=lambda r: -r["ratio"]["p90"])[:8]
    for r in worst:
        w = r.get("worst") or {}
        print(f"  {r['name']} ({r['profile']}): {r['buffers']} buffers, median "
              f"{r['ratio']['median']:.3f}, p90 {r['ratio']['p90']:.3f}, worst "
              f"{r['ratio']['worst']:.3f} at {w.get('assignment')}; best fit p90 "
              f"{r['best_fit']['p90']:.3f}")
    slow = max(rows, key=lambda r: r["seconds"])
    print(f"slowest: {slow['name']} ({slow['profile']}) {slow['seconds']:.2f} s")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, default=str))
    for b in bad:
        print("FAIL " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
