"""Every versa op, in every element type it accepts, compiled to an object for every CPU target:
each undefined symbol of the object must be one Versa's runtime provides.

Why objects and not the lowered MLIR: LLVM's code generator adds calls of its own for what a CPU
has no instruction for (f32 -> bf16 without AVX512-BF16 became compiler-rt's `__truncsfbf2`, which
the JIT cannot resolve); `versa.cpu.symbols.check_external_symbols` never sees those.

The op programs are test_lowering_numerics.py's cases (every op with its attributes and shapes),
retyped to each element type; the verifier decides which types an op accepts (a retyped case
that does not verify is dropped). Operands that are not the op's data (indices, a select's
condition) keep their type. bf16 has no NumPy type, so bf16 values cross the function boundary
as f32, cast inside.

Compile time is per function (about 0.05 s at -O0, 0.1 s at -O3, twice that for bf16), so cases
that differ only in shapes or numeric attributes are compiled once per type (`_key`): about 75
functions per float type, 46 per integer type. One module per (target, element type, opt
level); when one needs a symbol nothing provides, each of its cases is rebuilt alone to name
the cases that need it (only failures pay for that). The whole file takes about 80 s of CPU.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import pytest
import test_lowering_numerics as numerics
from versa import compiler, targets, translate
from versa.context import make_context
from versa.cpu import openmp, symbols
from versa.diagnostics import CompileError
from versa.dialects.attributes import parse_attrs
from versa.dialects.core import ELEMENT_TYPES
from versa.dialects.versa import OPS
from versa.mlir import ir
from versa.passes.common.base import PassError

CPU_TARGETS = [name for name in targets.CPU_NAMES if name != "x86-64"]  # x86-64: an alias of host
CASES = (
    numerics.ELEMENTWISE
    + numerics.STRUCTURED
    + numerics.DATA_MOVEMENT
    + numerics.WIDE_TYPES
    + numerics.LOGICAL
    + numerics.INDEXING
    + numerics.MATH
    + numerics.QUANTIZED
)
QUANTIZED_OPS = {param.values[0] for param in numerics.QUANTIZED}  # fixed types: 8-bit, i32, f32
NOT_OPS = {"fused", "yield"}  # regions of other ops, not ops of their own
BYTE_ONLY_OPS = {"max_pool2d"}  # integer forms for 8-bit types alone (a quantized network's pools)
FIXED_KINDS = {"idx32", "idx64"}  # index operands: their type is not the op's element type
CONSTANTS = {"i1": "[true, false, true]", "i8": "[1, -2, 3]", "i32": "[1, -2, 3]", "i64": "[1, -2, 3]"}


@dataclass(frozen=True)
class Case:
    """One op in one element type, as a function `@{name}` of its own."""

    label: str  # op-case[element], for failure messages
    op: str
    text: str  # the func.func, its name a placeholder: `@{name}`

    def function(self, name: str) -> str:
        return self.text.replace("@{name}", f"@{name}", 1)


def _type(shape: tuple[int, ...], element: str) -> str:
    return numerics.tensor_type(shape, element)


def function_text(op: str, operands: list[tuple], result: tuple, attrs: str) -> str:
    """`@{name}` holding one versa op; bf16 arguments and results are f32 at the boundary."""
    lines, args, names = [], [], []
    for i, (shape, element) in enumerate(operands):
        outer = "f32" if element == "bf16" else element
        args.append(f"%arg{i}: {_type(shape, outer)}")
        names.append(f"%arg{i}")
        if element == "bf16":
            lines.append(
                f'  %in{i} = "versa.cast"(%arg{i}) : ({_type(shape, "f32")}) -> {_type(shape, "bf16")}'
            )
            names[-1] = f"%in{i}"
    types = ", ".join(_type(*t) for t in operands)
    attr_part = f" {{{attrs}}}" if attrs else ""
    lines.append(f'  %r = "versa.{op}"({", ".join(names)}){attr_part} : ({types}) -> {_type(*result)}')
    value, out = "%r", result
    if result[1] == "bf16":
        out = (result[0], "f32")
        lines.append(f'  %out = "versa.cast"(%r) : ({_type(*result)}) -> {_type(*out)}')
        value = "%out"
    lines.append(f"  return {value} : {_type(*out)}")
    return f"func.func @{{name}}({', '.join(args)}) -> {_type(*out)} {{\n" + "\n".join(lines) + "\n}\n"


@cache
def _kind_element(kind: str) -> str:
    """The element type of numerics' input kind `kind` (`small`: f32, `idx64`: i64)."""
    return numerics.element_name(numerics.make_input((1,), kind, np.random.default_rng(0)).dtype)


@cache
def templates() -> list[tuple[Any, str, tuple]]:
    """Each numerics case with its attributes in MLIR syntax and its result shape, by the op
    table's own rules (one context for all: creating one loads every dialect)."""
    found = []
    with make_context(), ir.Location.unknown():
        for param in CASES:
            op, shapes, _, _, shape, attrs = param.values
            cls = OPS[f"versa.{op}"]
            ir_attrs = {k: numerics.to_attr(v) for k, v in attrs.items()}
            parsed = parse_attrs(cls.ATTRS, ir_attrs, len(shapes[0]) if shapes else 0)
            result = tuple(cls.result_shape(list(shapes), parsed, shape))
            found.append((param, ", ".join(f"{k} = {v}" for k, v in ir_attrs.items()), result))
    return found


def retyped(param: Any, attr_text: str, result_shape: tuple, element: str) -> Case:
    """A numerics case with its data in `element`. The data type is the result's when an operand
    has it (add, select), else the first operand's (compare, reduce_argmax, cast); operands of
    that type become `element` (index operands excepted), and the result too when it has it."""
    op, shapes, kinds, out, _, _ = param.values
    elements = [_kind_element(k) for k in kinds]
    out = out or elements[0]
    data = out if out in elements or not elements else elements[0]
    operands = [
        (s, element if e == data and k not in FIXED_KINDS else e)
        for s, e, k in zip(shapes, elements, kinds, strict=True)
    ]
    result = (result_shape, element if out == data else out)
    return Case(f"{param.id}[{element}]", op, function_text(op, operands, result, attr_text))


def extra_cases(element: str) -> list[Case]:
    """What the numerics cases leave out: casts to every other type, and versa.constant."""
    cases = [
        Case(f"cast-to-{to}[{element}]", "cast", function_text("cast", [((3, 4), element)], ((3, 4), to), ""))
        for to in ELEMENT_TYPES
        if to != element
    ]
    value = f"value = dense<{CONSTANTS.get(element, '[0.5, -1.25, 3.0]')}> : {_type((3,), element)}"
    return [
        *cases,
        Case(f"constant[{element}]", "constant", function_text("constant", [], ((3,), element), value)),
    ]


def _key(case: Case) -> tuple:
    """What a case's code depends on beyond its shapes: the op, its written string attributes
    (layout, predicate, approximation, reduction) and the element types of its operands and
    result. Cases that differ only in shapes, or numeric attributes, share a key."""
    line = next(line for line in case.text.splitlines() if line.startswith("  %r = "))
    head, _, types = line.rpartition(" : ")
    strings = tuple(sorted(re.findall(r'(\w+) = "(\w+)"', head)))
    return (case.op, strings, tuple(re.findall(r"[<x]([a-z]+\d+)>", types)))


@cache
def cases_of(element: str) -> tuple[Case, ...]:
    """One case per key (`_key`) in `element` that verifies: an op that does not accept the type,
    or a case whose retyping does not fit the op, fails verification and is dropped."""
    found: dict[tuple, Case] = {}
    context = make_context()
    for case in [*(retyped(*t, element) for t in templates()), *extra_cases(element)]:
        if _key(case) in found:
            continue
        try:
            compiler.parse_module(compiler.Chunk(case.function("f"), 1), context)
        except CompileError:
            continue
        found[_key(case)] = case
    return tuple(found.values())


def build(cases: Sequence[Case], spec: tuple[str, int, bool]) -> set[str]:
    """The undefined symbols of the object of `cases` (one function each), lowered and emitted
    for `spec` (target, opt level, threaded). A lowering failure is a pseudo-symbol.

    The pass manager does not verify after every pass (run_passes' does): the pipeline's IR is
    verified by the tests that run it; here verification was two thirds of the lowering time.
    The result is verified once, as the translation to LLVM IR needs valid IR."""
    target, opt, threaded = spec
    text = "".join(case.function(f"case{i}") for i, case in enumerate(cases))
    module = compiler.parse_module(compiler.Chunk(text, 1), make_context())
    pipeline = f"lower-to-llvm{{target={target} opt-level={opt} standalone={int(not threaded)}}}"
    try:
        manager = compiler.build_pass_manager(compiler.parse_pipeline(pipeline), module.context)
        manager.enable_verifier(False)
        manager.run(module.operation)
        module.operation.verify()
        obj = translate.emit_object(module.operation, targets.resolve(target), opt)
    except (ir.MLIRError, CompileError, PassError) as err:
        return {f"(fails to compile: {str(err).splitlines()[0]})"}
    return symbols.object_undefined_symbols(obj)


def culprits(cases: Sequence[Case], names: set[str], spec: tuple[str, int, bool]) -> dict[str, list[str]]:
    """For each of `names` (symbols that the object of `cases` needs), the cases that need it.
    Each case is built alone: compile time is per function, so this costs about one more build
    of the batch, only on failure (bisection cost more, as a libcall is often needed by most)."""
    found: dict[str, list[str]] = {}
    for case in cases:
        for name in names & build([case], spec):
            found.setdefault(name, []).append(case.label)
    for name in names - found.keys():  # needed only by cases together (an interaction)
        found[name] = [f"the {len(cases)} cases together"]
    return found


BUILDS = [(target, opt, False) for target in CPU_TARGETS for opt in (0, 3)] + [("host", 3, True)]


def _build_id(spec: tuple[str, int, bool]) -> str:
    target, opt, threaded = spec
    return f"{target}-O{opt}" + ("-threads" if threaded else "")


@pytest.mark.parametrize("element", ELEMENT_TYPES)
@pytest.mark.parametrize("spec", BUILDS, ids=_build_id)
def test_objects_need_only_runtime_symbols(spec: tuple[str, int, bool], element: str) -> None:
    """Every undefined symbol of the object is libc, libm (or, threaded, the OpenMP runtime)."""
    threaded = spec[2]
    if threaded and openmp.runtime_library() is None:
        pytest.skip("no OpenMP runtime: threaded code is serial")
    provided = openmp.provides if threaded else (lambda _: False)
    cases = cases_of(element)
    missing = symbols.unprovided_object_symbols(build(cases, spec), provided)
    if missing:
        found = culprits(cases, missing, spec)
        lines = [f"  {name}: {', '.join(found[name])}" for name in sorted(found)]
        pytest.fail(
            f"{_build_id(spec)} {element}: the object needs symbols Versa's runtime does not provide\n"
            + "\n".join(lines)
        )


def test_cases_cover_every_op() -> None:
    """Every versa op is compiled in some element type, and types of one kind get the same ops
    (a retyping that misses an op for one type would show here)."""
    ops = {element: {case.op for case in cases_of(element)} for element in ELEMENT_TYPES}
    assert {name.removeprefix("versa.") for name in OPS} - NOT_OPS <= set().union(*ops.values())
    general = {element: found - QUANTIZED_OPS for element, found in ops.items()}
    assert general["f32"] == general["f16"] == general["bf16"]
    assert general["i32"] == general["i8"] - BYTE_ONLY_OPS == general["i64"]
    assert BYTE_ONLY_OPS <= general["i8"]


@pytest.mark.parametrize("target", ["x86-64-v3", "aarch64-neon"])
def test_object_undefined_symbols(target: str) -> None:
    """The ELF reader finds what an object calls but does not define, on both architectures."""
    text = """
    llvm.func @helper(f32) -> f32
    llvm.func @expf(f32) -> f32
    llvm.func @main(%x: f32) -> f32 {
      %0 = llvm.call @helper(%x) : (f32) -> f32
      %1 = llvm.call @expf(%0) : (f32) -> f32
      llvm.return %1 : f32
    }
    """
    module = ir.Module.parse(text, make_context())
    undefined = symbols.object_undefined_symbols(
        translate.emit_object(module.operation, targets.resolve(target), 0)
    )
    assert {"helper", "expf"} <= undefined and "main" not in undefined
    assert symbols.unprovided_object_symbols(undefined | {"_GLOBAL_OFFSET_TABLE_"}) == {"helper"}
