"""Meta-tests: the registries and the test tree stay in step with each other."""

import re
from pathlib import Path

import pytest
from versa.dialects.semantics import SEMANTICS
from versa.dialects.versa import OPS
from versa.passes import PASSES, PIPELINES
from versa.passes.versa_to_linalg.convert_versa_to_linalg import PATTERNS

TEST_ROOT = Path(__file__).resolve().parents[2]
REGION_OPS = {"versa.fused", "versa.yield"}
COMPUTE_OPS = sorted(set(OPS) - REGION_OPS)


def test_registry_keys_are_pass_names():
    for flag, cls in {**PASSES, **PIPELINES}.items():
        assert flag == cls.name


@pytest.mark.parametrize("flag", sorted({**PASSES, **PIPELINES}))
def test_every_flag_has_its_lit_file(flag):
    by_prefix = {"versa": "Transforms", "convert": "Conversion"}
    folder = "Pipelines" if flag in PIPELINES else by_prefix[flag.split("-")[0]]
    assert (TEST_ROOT / folder / f"{flag}.mlir").is_file()


@pytest.mark.parametrize("op", COMPUTE_OPS)
def test_every_op_has_semantics(op):
    assert op.removeprefix("versa.") in SEMANTICS


@pytest.mark.parametrize("op", COMPUTE_OPS)
def test_every_op_has_a_lowering(op):
    lowered = {cls.OPERATION_NAME for cls, _ in PATTERNS}
    assert op in lowered


@pytest.mark.parametrize("op", COMPUTE_OPS)
def test_every_op_has_a_numeric_test_and_a_round_trip(op):
    numerics = (TEST_ROOT / "python" / "passes" / "test_lowering_numerics.py").read_text()
    round_trip = (TEST_ROOT / "Dialect" / "versa" / "ops.mlir").read_text()
    name = op.removeprefix("versa.")
    assert re.search(rf'["\']{name}["\']|"{op}"', numerics), f"no numeric test for {op}"
    assert f'"{op}"' in round_trip, f"no round trip for {op}"
