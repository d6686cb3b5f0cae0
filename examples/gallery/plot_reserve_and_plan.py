"""
The reserve against the batch, the largest batch that fits, and a static plan
==============================================================================

A deployer's three questions on the repository's CNN (a PyTorch export with symbolic batch,
height and width) under the ``onnxruntime-cpu-unoptimized-no-arena`` profile: how much must the process hold
at each batch, which is the largest batch within a budget, and how one arena laid out once for
every size compares with the live bytes no layout can beat.
"""
import os
import pathlib

import matplotlib.pyplot as plt

import cctx

try:
    SOURCE = pathlib.Path(__file__).resolve().parents[2]
except NameError:  # run by sphinx-gallery from examples/gallery
    SOURCE = pathlib.Path(os.getcwd()).resolve().parents[1]
MODEL = str(SOURCE / "tests" / "models" / "cnn.onnx")
SIZE = {"height": 224, "width": 224}

ctx = cctx.ComputeContext("onnxruntime-cpu-unoptimized-no-arena")
ctx.compute(MODEL)

# %%
# The reserve (session + inputs + run) at each batch, and the largest batch within 256 MiB.
batches = list(range(1, 81, 2))
reserve = [ctx.evaluate_runtime({"batch": b, **SIZE})["reserve_bytes"] / 2**20 for b in batches]
found = cctx.fit(MODEL, "256MiB", "batch", fixed=SIZE, profile="onnxruntime-cpu-unoptimized-no-arena")
print(f"largest batch within 256 MiB: {found['value']} "
      f"(reserve {found['at']['reserve_bytes'] / 2**20:.1f} MiB; {found['method']})")

# %%
# A static plan: every intermediate buffer's offset as a formula; its arena against the
# live-bytes floor at a few batches.
plan = ctx.plan(evaluate=[{"batch": b, **SIZE} for b in (1, 8, 32)], check=500)
for e in plan["evaluations"]:
    print(f"batch {e['assignment']['batch']:>2}: arena {e['arena'] / 2**20:7.1f} MiB, "
          f"floor {e['floor'] / 2**20:7.1f} MiB")
print(f"checked at {plan['check']['checked']} assignments: {plan['check']['overlaps']} overlaps")

fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(batches, reserve, marker="o", label="reserve (session + inputs + run)")
ax.axhline(256, color="tab:red", linestyle="--", label="budget 256 MiB")
ax.axvline(found["value"], color="tab:green", linestyle=":", label=f"largest batch {found['value']}")
ax.set_xlabel("batch (224x224)")
ax.set_ylabel("MiB")
ax.legend()
fig.tight_layout()
plt.show()
