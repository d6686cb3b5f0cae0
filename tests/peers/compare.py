"""The comparisons of the peers run, as plain functions of plain data (no tool is run here), so
that the ctest can check them on a tiny model with Debian's python alone.

- dims a tool prints (ints, symbolic texts of several dialects) evaluated at an assignment;
- each value classified against ONNX Runtime's actual dims;
- memory figures against the measured heap: a ratio per point and which figure is closest;
- counts per tool and family.
"""
import ast
import math
from fractions import Fraction

# The verdicts of one value for one tool at one point.
EQUAL, WRONG, UNRESOLVED, DATA, ABSENT = "equal", "wrong", "unresolved", "data-dependent", "absent"


class Unknown(Exception):
    """A dim that names a symbol the assignment does not give (or text nobody can read)."""


def _call(name, args):
    f = name.lower()
    if f in ("floor",):
        return Fraction(math.floor(args[0]))
    if f in ("ceiling", "ceil"):
        return Fraction(math.ceil(args[0]))
    if f == "max":
        return max(args)
    if f == "min":
        return min(args)
    if f == "mod":
        return args[0] - args[1] * math.floor(args[0] / args[1])
    if f == "abs":
        return abs(args[0])
    if f in ("trunc", "int"):
        return Fraction(math.trunc(args[0]))
    raise Unknown(f"function {name}")


def _eval(node, symbols):
    if isinstance(node, ast.Expression):
        return _eval(node.body, symbols)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return Fraction(node.value)
    if isinstance(node, ast.Name):
        if node.id in symbols:
            return Fraction(symbols[node.id])
        raise Unknown(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _eval(node.operand, symbols)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left, symbols), _eval(node.right, symbols)
        op = node.op
        if isinstance(op, ast.Add):
            return a + b
        if isinstance(op, ast.Sub):
            return a - b
        if isinstance(op, ast.Mult):
            return a * b
        if isinstance(op, ast.Div):
            return a / b
        if isinstance(op, ast.FloorDiv):
            return Fraction(math.floor(a / b))
        if isinstance(op, ast.Mod):
            return a - b * math.floor(a / b)
        if isinstance(op, ast.Pow) and b.denominator == 1 and 0 <= b <= 64:
            return a ** int(b)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        return _call(node.func.id, [_eval(a, symbols) for a in node.args])
    raise Unknown(ast.dump(node)[:60])


def evaluate_dim(dim, symbols):
    """int of one dim at `symbols`, or raises Unknown. A dim is an int, None (unknown), or text:
    a symbol's name (any characters: ONNX allows "Sequence Length") or an expression in sympy's
    or cctx's syntax (floor(h/2) + 1, Max(a, b), ceiling(x/8), ...)."""
    if isinstance(dim, bool):
        raise Unknown("bool")
    if isinstance(dim, int):
        return dim
    if dim is None:
        raise Unknown("unknown dim")
    text = str(dim).strip()
    if text in symbols:
        return int(symbols[text])
    try:
        tree = ast.parse(text.replace("^", "**"), mode="eval")
    except SyntaxError:
        raise Unknown(text) from None
    try:
        value = _eval(tree, symbols)
    except (ZeroDivisionError, OverflowError, ValueError, TypeError, RecursionError) as e:
        raise Unknown(f"{text}: {e}") from None
    if value.denominator != 1:
        raise Unknown(f"{text} = {value} is no integer")
    return int(value)


def evaluate_dims(dims, symbols, evaluate=evaluate_dim):
    """list of ints, or raises Unknown (no rank, or a dim left open)."""
    if dims is None:
        raise Unknown("no rank")
    return [evaluate(d, symbols) for d in dims]


def classify(name, tool_values, ort_dims, symbols, data_dependent, evaluate=evaluate_dim):
    """(verdict, the tool's dims at the point or its text). `tool_values` is the tool's
    {name: dims}; a value it does not list is ABSENT. A data-dependent value (its dims follow
    from the inputs' contents) left open, or given an upper bound (every dim >= the actual one),
    is DATA: no static tool is expected to know the run's count."""
    if name not in tool_values:
        return ABSENT, None
    dims = tool_values[name]
    try:
        got = evaluate_dims(dims, symbols, evaluate)
    except (Unknown, ZeroDivisionError, OverflowError, ValueError, TypeError):
        return (DATA if name in data_dependent else UNRESOLVED), dims
    if got == list(ort_dims):
        return EQUAL, got
    if name in data_dependent and len(got) == len(ort_dims) and \
            all(a >= b for a, b in zip(got, ort_dims)):
        return DATA, got
    return WRONG, got


def new_counts():
    return {"values": 0, EQUAL: 0, WRONG: 0, UNRESOLVED: 0, DATA: 0, ABSENT: 0}


def complete(counts):
    """Values with a numeric shape at the point (right or wrong, bounds included)."""
    return counts[EQUAL] + counts[WRONG]


def add_counts(total, part):
    for k, v in part.items():
        total[k] = total.get(k, 0) + v
    return total


def compare_point(ort_dims, tools, symbols, data_dependent, evaluators=None):
    """One point: ort_dims {name: dims}; tools {tool: {name: dims} or None (the tool failed)}.
    Returns {tool: counts}, {tool: [wrong]}, and the values some tool gets right where
    `reference` ("cctx") does not: [(name, cctx verdict, [tools right])]."""
    evaluators = evaluators or {}
    counts, wrong, verdicts = {}, {}, {}
    for tool, values in tools.items():
        if values is None:
            continue
        c, w = new_counts(), []
        ev = evaluators.get(tool, evaluate_dim)
        for name, actual in ort_dims.items():
            v, got = classify(name, values, actual, symbols, data_dependent, ev)
            c["values"] += 1
            c[v] += 1
            verdicts.setdefault(name, {})[tool] = v
            if v == WRONG:
                w.append({"value": name, "tool": got, "ort": list(actual)})
        counts[tool], wrong[tool] = c, w
    return counts, wrong, verdicts


def gaps(verdicts, reference="cctx"):
    """Values where a peer is EQUAL and the reference is not: [(name, ref verdict, [peers])]."""
    out = []
    for name, by_tool in verdicts.items():
        if reference not in by_tool or by_tool[reference] == EQUAL:
            continue
        right = sorted(t for t, v in by_tool.items() if t != reference and v == EQUAL)
        if right:
            out.append((name, by_tool[reference], right))
    return out


# ---------------------------------------------------------------------------- memory

def ratio(figure, measured):
    if not figure or not measured or figure <= 0 or measured <= 0:
        return None
    return figure / measured


def closest(figures, measured):
    """Of {tool: bytes or None}, the tool whose figure is nearest to `measured` by |log ratio|
    (a figure 2x over is as far as one 2x under); None when no figure is usable."""
    best, best_d = None, None
    for tool, f in sorted(figures.items()):
        r = ratio(f, measured)
        if r is None:
            continue
        d = abs(math.log(r))
        if best_d is None or d < best_d - 1e-12:
            best, best_d = tool, d
    return best


def memory_summary(points, reference="cctx"):
    """points: [{"measured": bytes, "figures": {tool: bytes}}]. Per tool: how many points it has
    a figure at, the median ratio, the share within 10% and how often it is the closest."""
    tools = sorted({t for p in points for t in p["figures"]})
    out = {}
    for t in tools:
        rs = sorted(r for p in points for r in [ratio(p["figures"].get(t), p["measured"])]
                    if r is not None)
        wins = sum(1 for p in points if closest(p["figures"], p["measured"]) == t)
        out[t] = {"points": len(rs), "median": rs[len(rs) // 2] if rs else None,
                  "min": rs[0] if rs else None, "max": rs[-1] if rs else None,
                  "within10": sum(1 for r in rs if abs(r - 1) <= 0.10), "closest": wins}
    scored = [p for p in points if closest(p["figures"], p["measured"]) is not None]
    out["_points"] = len(scored)
    out["_reference_closest_share"] = (out.get(reference, {}).get("closest", 0) / len(scored)
                                       if scored else None)
    return out
