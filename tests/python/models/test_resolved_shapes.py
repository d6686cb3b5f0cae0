"""Every value of every exported fixture gets a known rank whose dims use only the input symbols.

A dim that is not a function of the inputs' sizes must be listed with the reason: below when the
size is data-dependent, in fixtures.KNOWN_GAPS when cctx could know it but does not. Every listed
exception must still occur (a fixed gap fails the test until its entry is removed).
"""
import pytest

import fixtures

# (fixture, value name, axis) -> why the size is not a function of the input sizes. The
# exported fixtures have none: the If's condition is data-dependent, but both branches' sizes
# are functions of batch and seq.
DATA_DEPENDENT: dict = {}
# (fixture, value name, axis) -> why the value has no shape to resolve.
NO_ELEMENT = {
    ("control_flow", "/SequenceEmpty_output_0", None):
        "an empty sequence (length 0, which cctx knows) has no element whose shape could be known; "
        "ONNX's own inference leaves it without a shape too",
}
ALLOWED = {**DATA_DEPENDENT, **NO_ELEMENT, **fixtures.KNOWN_GAPS}


def unresolved(name: str):
    """(value, axis, reason) for every value whose rank is unknown or whose dims use other symbols."""
    model = fixtures.stripped(fixtures.load(name))
    _, written = fixtures.analyse(model)
    shapes = fixtures.shapes_by_name(written)
    assert shapes, "cctx wrote no shapes"
    problems = []
    for value, dims in shapes.items():
        if dims is None:
            problems.append((value, None, "unknown rank"))
            continue
        for axis, d in enumerate(dims):
            extra = fixtures.symbols_in(d) - fixtures.INPUT_SYMBOLS
            if extra or d == "":
                problems.append((value, axis, f"dim {d!r} uses {sorted(extra)}"))
    return problems, len(shapes)


@pytest.mark.parametrize("name", fixtures.NAMES)
def test_every_value_has_a_known_rank_over_the_input_symbols(name):
    problems, count = unresolved(name)
    unexpected = [p for p in problems if (name, p[0], p[1]) not in ALLOWED]
    assert not unexpected, f"{len(unexpected)} of {count} values unresolved: {unexpected}"
    listed = {(v, a) for (f, v, a) in ALLOWED if f == name}
    assert listed <= {(p[0], p[1]) for p in problems}, "a listed exception no longer occurs"


def test_the_fixture_set_is_the_one_exported():
    assert fixtures.NAMES == ["cnn", "control_flow", "functions", "gpt_decoder", "lstm_gru",
                              "transformer_encoder"]
