"""The driver: parse versa IR, assemble a pipeline of Versa and upstream passes, run it.

A pipeline string is MLIR's (`builtin.module(versa-fuse,canonicalize,lower-to-llvm{opt-level=3})`).
Versa passes are Python objects, not registered names, so the driver splits the string at the
top level: each Versa element becomes a Python pass, each upstream element is handed to the
PassManager as text, and a pipeline (`lower-to-llvm`) expands into its steps. All of them run in
one upstream PassManager, so IR printing, timing and verification cover every step alike.
With the `versa.compiler` log at info (VERSA_LOG=info), each element runs in a PassManager of
its own instead, timed one by one (the same passes and verification; MLIR's own `--mlir-timing`
and IR printing keep the single PassManager).
"""

import logging
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from versa import log
from versa.context import make_context
from versa.diagnostics import CompileError, Diagnostic, from_mlir_error
from versa.mlir import PassManager, ir
from versa.passes import PASSES, PIPELINES
from versa.passes.common.base import Pass, PassError

Element = str | Pass
_SPLIT_MARKER = re.compile(r"^// -----", re.MULTILINE)
# MLIR's parser recurses per nesting level and overflows the C stack (a segfault) at a few
# thousand levels; real models nest a few dozen deep.
MAX_NESTING = 500
# Text that holds no nesting: strings, comments, and the `>` of `->`, `>=`, `<=`.
_NOT_NESTING = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|->|[<>]=')
_OPEN, _CLOSE = (np.array([ord(c) for c in chars], np.uint32) for chars in ("([{<", ")]}>"))
_BARE_VERSA_OP = re.compile(r"(?<![\w.$#!@%^])versa\.\w+")
_log = log.get("compiler")


@dataclass(frozen=True)
class Chunk:
    """One `// -----` piece of an input file; `first_line` keeps diagnostics' lines exact."""

    text: str
    first_line: int


def decode(data: bytes) -> str:
    """UTF-8 text of `data`, or a located error at the first invalid byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        before = data[: err.start]
        line = before.count(b"\n") + 1
        col = err.start - (before.rfind(b"\n") + 1) + 1
        raise CompileError(
            [Diagnostic("error", f"input is not valid UTF-8 (byte 0x{data[err.start]:02x})", line, col)]
        ) from None


def split_input(text: str, split: bool) -> list[Chunk]:
    if not split:
        return [Chunk(text, 1)]
    chunks, start = [], 0
    for match in _SPLIT_MARKER.finditer(text):
        chunks.append(Chunk(text[start : match.start()], text.count("\n", 0, start) + 1))
        start = text.find("\n", match.end()) + 1 or len(text)
    chunks.append(Chunk(text[start:], text.count("\n", 0, start) + 1))
    return chunks


def _error_at(chunk: Chunk, offset: int, message: str) -> CompileError:
    before = chunk.text[:offset]
    line, col = before.count("\n") + chunk.first_line, offset - (before.rfind("\n") + 1) + 1
    return CompileError([Diagnostic("error", message, line, col)])


def check_nesting(chunk: Chunk) -> None:
    """Refuse brackets nested deeper than MAX_NESTING before MLIR's parser overflows its stack."""
    text = _NOT_NESTING.sub(lambda m: " " * len(m.group()), chunk.text)  # offsets unchanged
    if sum(text.count(c) for c in "([{<") <= MAX_NESTING:
        return
    codes = np.frombuffer(text.encode("utf-32-le"), np.uint32)
    depth = np.cumsum(np.isin(codes, _OPEN).astype(np.int64) - np.isin(codes, _CLOSE))
    if depth.max() > MAX_NESTING:
        offset = int(np.argmax(depth > MAX_NESTING))
        raise _error_at(chunk, offset, f"nesting deeper than {MAX_NESTING} levels is not supported")


def parse_module(chunk: Chunk, context: ir.Context) -> ir.Module:
    """Parse and verify one chunk; line numbers refer to the whole file."""
    if "\x00" in chunk.text:
        raise _error_at(chunk, chunk.text.index("\x00"), "input contains a NUL byte")
    check_nesting(chunk)
    try:
        return ir.Module.parse("\n" * (chunk.first_line - 1) + chunk.text, context)
    except ir.MLIRError as err:
        if err.error_diagnostics:
            raise from_mlir_error(err) from None
        raise _unlocated_parse_error(chunk) from None


def _unlocated_parse_error(chunk: Chunk) -> CompileError:
    """MLIR gives no diagnostic when a `dialects.ext` op is written in custom form: find one."""
    text = _NOT_NESTING.sub(lambda m: " " * len(m.group()), chunk.text)
    match = _BARE_VERSA_OP.search(text)
    if match is None:
        return CompileError([Diagnostic("error", "could not parse the input as MLIR")])
    name = match.group()
    message = f"'{name}' must be written in the generic form: \"{name}\"(operands) : (types) -> type"
    return _error_at(chunk, match.start(), message)


def _top_level_items(text: str) -> list[str]:
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch in "({"
        depth -= ch in ")}"
        if ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    items.append(text[start:].strip())
    return [item for item in items if item]


def parse_pipeline(text: str, target: str | None = None) -> list[Element]:
    """Split a textual pipeline into Versa passes (objects) and upstream elements (text).

    `target` (a `versa.targets` name) is the default target of the pipelines that take one."""
    text = text.strip()
    match = re.fullmatch(r"builtin\.module\((.*)\)", text, re.DOTALL)
    if match:
        text = match.group(1)
    elements: list[Element] = []
    for item in _top_level_items(text):
        name, _, rest = item.partition("{")
        if name.strip() in PASSES or name.strip() in PIPELINES:
            elements.extend(make_pass(name.strip(), rest.rstrip("}"), target))
        else:
            elements.append(item)
    return elements


def make_pass(name: str, options: str = "", target: str | None = None) -> list[Element]:
    """A Versa pass, or a pipeline expanded into its steps (for `target` unless it names one)."""
    try:
        if name in PIPELINES:
            if target:
                options = PIPELINES[name].with_target(options, target)
            return list(PIPELINES[name].from_options(options).steps())
        return [PASSES[name].from_options(options)]
    except PassError as err:
        raise CompileError([Diagnostic("error", str(err))]) from None


class PassFailure(CompileError):
    """A pass failed on verified IR other than by refusing it (PassError): a bug in Versa or
    upstream MLIR. `before` is the module before the pipeline, when it was kept."""

    def __init__(self, diagnostics: list[Diagnostic], before: ir.Operation | None = None):
        super().__init__(diagnostics)
        self.before = before


def _python_pass(p: Pass, refusals: list[str]):
    def run(op: ir.Operation, pass_) -> None:
        try:
            with op.context, op.location:
                p.run(op)
        except PassError as err:
            (err.location or op.location).emit_error(str(err))
            refusals.append(p.name)
            pass_.signal_pass_failure()
        except Exception as err:  # a bug in a pass: a diagnostic, never a traceback
            op.location.emit_error(f"pass '{p.name}' failed: {type(err).__name__}: {err}")
            pass_.signal_pass_failure()

    run.__name__ = p.name
    return run


def build_pass_manager(
    elements: Iterable[Element],
    context: ir.Context,
    *,
    print_ir_after_all: bool = False,
    print_ir_after_failure: bool = False,
    timing: bool = False,
    refusals: list[str] | None = None,
) -> PassManager:
    """A PassManager over `elements` that verifies the IR after every pass. The names of Versa
    passes that refuse their input (PassError) are appended to `refusals`."""
    pm = PassManager("builtin.module", context)
    pm.enable_verifier(True)
    refusals = [] if refusals is None else refusals
    for element in elements:
        try:
            if isinstance(element, Pass):
                pm.add(_python_pass(element, refusals), name=element.name, argument=element.name)
            else:
                pm.add(element)
        except ValueError as err:
            raise CompileError(
                [Diagnostic("error", f"invalid pipeline element '{element}': {str(err).strip()}")]
            ) from None
    if print_ir_after_all or print_ir_after_failure:  # both: only on failure, as mlir-opt
        pm.enable_ir_printing(
            print_after_all=True, print_after_failure=print_ir_after_failure, print_module_scope=True
        )
    if timing:
        pm.enable_timing()
    return pm


def run_passes(
    module: ir.Module, elements: Sequence[Element], *, keep_input: bool = False, **options
) -> None:
    """Verify `module` (PassManager does not), then run `elements` on it in place. A failure
    that no Versa pass reported as a refusal of its input raises PassFailure, carrying a copy of
    the module from before the pipeline if `keep_input` (for a reproducer)."""
    try:
        module.operation.verify()
    except ir.MLIRError as err:
        raise from_mlir_error(err) from None
    if not elements:
        return
    before = module.operation.clone() if keep_input else None
    refusals: list[str] = []
    timed = _log.isEnabledFor(logging.INFO) and not any(options.values())
    start = time.perf_counter()
    try:
        for group in [[e] for e in elements] if timed else [elements]:
            began = time.perf_counter()
            build_pass_manager(group, module.context, refusals=refusals, **options).run(module.operation)
            if timed:
                _log.info("%-40s %8.3f s", element_name(group[0]), time.perf_counter() - began)
    except ir.MLIRError as err:
        error = from_mlir_error(err)
        raise (error if refusals else PassFailure(error.diagnostics, before)) from None
    _log.info("%d passes in %.3f s", len(elements), time.perf_counter() - start)


def element_name(element: Element) -> str:
    """A pipeline element as a log shows it: a Versa pass's flag, an upstream element's text."""
    text = element.name if isinstance(element, Pass) else " ".join(element.split())
    return text if len(text) <= 40 else text[:37] + "..."


def compile_text(text: str, pipeline: str | Sequence[Element]) -> ir.Module:
    """Parse versa IR and run `pipeline` on it (in a fresh context)."""
    elements = parse_pipeline(pipeline) if isinstance(pipeline, str) else list(pipeline)
    module = parse_module(Chunk(text, 1), make_context())
    run_passes(module, elements)
    return module


__all__ = [
    "Chunk",
    "CompileError",
    "PassFailure",
    "compile_text",
    "decode",
    "make_pass",
    "parse_module",
    "parse_pipeline",
    "run_passes",
    "split_input",
]
