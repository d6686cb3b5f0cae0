#!/usr/bin/env python3
"""Rewrites operator-set rule bodies onto the SDK kit's throwing helpers (cctx/sdk/kit/).

Re-runnable (a converted file is left as it is) and purely mechanical; every rewrite keeps the
rule's result, because the kit's rule classes run the rule inside guarded(), which turns the
thrown kit::RuleError back into the same Status and sink call:

  if (!require_inputs(node, out, N, &st)) return st;     ->  require_inputs(node, N);
  if (Status s = EXPR; s != Status::kOk) return s;       ->  check(EXPR);
  return fail(out, MSG);                                 ->  return fail(MSG);
  return unsupported(out, MSG) / cannot_estimate(out, MSG)  ->  return unsupported(MSG);
  if (!unify(out, A, B, "what", &error)) return fail(error);  ->  unify(out, A, B, "what");
  Shape x = input_shape(node, K);
  if (!x.known) return set_shape(out, 0, T, Shape::unknown());  ->  Shape x = known_input(node, out, K, T);

`} else if (Status s = ...` chains are reported, not rewritten (they need a hand edit).
Usage: kit_convert.py FILE...
"""
import re
import sys


def match_paren(text, open_at):
    """Index just past the parenthesis that closes the one at open_at (skips strings)."""
    depth = 0
    i = open_at
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "'":
            i += 1
            while text[i] != "'":
                i += 2 if text[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced parenthesis")


def top_level_semicolon(text, start, end):
    """First ';' at parenthesis depth 0 in text[start:end], or -1."""
    depth = 0
    i = start
    while i < end:
        c = text[i]
        if c == '"':
            i += 1
            while text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ";" and depth == 0:
            return i
        i += 1
    return -1


LADDER = re.compile(r"if \(Status (\w+) =\s+")


def rewrite_ladders(text, path, report):
    out = []
    pos = 0
    for m in LADDER.finditer(text):
        if m.start() < pos:
            continue
        paren = m.start() + 3
        close = match_paren(text, paren)
        name = m.group(1)
        semi = top_level_semicolon(text, m.end(), close - 1)
        if semi < 0:
            continue
        cond = text[semi + 1 : close - 1].strip()
        if cond != f"{name} != Status::kOk":
            continue
        rest = text[close:]
        tail = re.match(r"\s*return " + name + r";", rest) or re.match(
            r"\s*\{\s*return " + name + r";\s*\}", rest
        )
        before = text[max(0, m.start() - 7) : m.start()]
        if not tail or before.endswith("else "):
            line = text.count("\n", 0, m.start()) + 1
            report.append(f"{path}:{line}: ladder left for a hand edit")
            continue
        expr = text[m.end() : semi].strip()
        expr = re.sub(r"\s*\n\s*", " ", expr)
        out.append(text[pos : m.start()])
        out.append(f"check({expr});")
        pos = close + tail.end()
    out.append(text[pos:])
    return "".join(out)


def rewrite_calls(text, callee, replacement):
    """`return callee(out, ARGS)` -> `return replacement(ARGS)` (ARGS balanced, any lines)."""
    pattern = re.compile(r"return(\s+)" + re.escape(callee) + r"(\()out,\s*")
    out = []
    pos = 0
    for m in pattern.finditer(text):
        close = match_paren(text, m.start(2))
        args = text[m.end() : close - 1]
        out.append(text[pos : m.start()])
        out.append(f"return{m.group(1)}{replacement}({args})")
        pos = close
    out.append(text[pos:])
    return "".join(out)


def drop_unused_status(text):
    """Removes `Status st;` declarations whose name is no longer used in the function."""
    lines = text.split("\n")
    keep = []
    for i, line in enumerate(lines):
        m = re.fullmatch(r"\s*(?:Status|std::string) (\w+);", line)
        if m:
            name = m.group(1)
            used = False
            for later in lines[i + 1 :]:
                if later.startswith("}"):
                    break
                if re.search(r"\b" + name + r"\b", later):
                    used = True
                    break
            if not used:
                continue
        keep.append(line)
    return "\n".join(keep)


def convert(text, path, report):
    text = re.sub(
        r"if \(!require_inputs\(node, out, ([^&]+?), &(\w+)\) \|\| !require_sequence\(node, out, "
        r"(\w+), &\2\)\) return \2;",
        r"require_inputs(node, \1);\n  require_sequence(node, \3);",
        text,
    )
    text = re.sub(
        r"if \(!require_inputs\(node, out, ([^&]+?), &(\w+)\)\) return \2;",
        r"require_inputs(node, \1);",
        text,
    )
    text = re.sub(
        r"if \(!require_sequence\(node, out, (\w+), &(\w+)\)\) return \2;",
        r"require_sequence(node, \1);",
        text,
    )
    text = re.sub(r"if \(!require_x\(node, out, &(\w+)\)\) return \1;", r"require_x(node);", text)
    text = re.sub(
        r"((?:const )?Shape (\w+)) = input_shape\(node, (\w+)\);\n\s*if \(!\2\.known\) return "
        r"set_shape\(out, 0, ([^,]+), Shape::unknown\(\)\);",
        r"\1 = known_input(node, out, \3, \4);",
        text,
    )
    text = re.sub(
        r"if \(!unify\(out, ([^;{}]*?), (\"[^\"]*\"),\s*&error\)\)\s*"
        r"(?:\{\s*return fail\(error\);\s*\}|return fail\(error\);)",
        lambda m: "unify(out, " + re.sub(r"\s*\n\s*", " ", m.group(1)) + ", " + m.group(2) + ");",
        text,
    )
    text = rewrite_ladders(text, path, report)
    text = rewrite_calls(text, "fail", "fail")
    text = rewrite_calls(text, "unsupported", "unsupported")
    text = rewrite_calls(text, "nn::cannot_estimate", "unsupported")
    text = rewrite_calls(text, "cannot_estimate", "unsupported")
    text = drop_unused_status(text)
    return text


def main():
    report = []
    for path in sys.argv[1:]:
        with open(path) as f:
            text = f.read()
        new = convert(text, path, report)
        if new != text:
            with open(path, "w") as f:
                f.write(new)
    for line in report:
        print(line)


if __name__ == "__main__":
    main()
