"""versa IR → a GPU `Program`: lower with `lower-to-nvvm`, read the host steps, make PTX.

Each outlined `gpu.module` is translated on its own (the translation takes a builtin module),
its kernel renamed after its module so that all kernels of a program share one LLVM module,
one libdevice link and one PTX text.
"""

import functools
import math
import re
from collections.abc import Callable, Sequence

import llvmlite.binding as llvm
import numpy as np

from versa import compiler, translate
from versa.diagnostics import CompileError, Diagnostic, error_at
from versa.dialects.attributes import elements_to_numpy
from versa.mlir import ir
from versa.passes.common.base import PassError
from versa.passes.gpu.pipeline import LowerToNVVM
from versa.reference import numpy_dtype
from versa.signature import TensorSpec, find_function
from versa.targets import Target

from .plan import Copy, Launch, Program, Scalar, Tensor, View

_SCALARS = {"index": "i64", "i64": "i64", "i32": "i32", "i16": "i16", "i8": "i8", "i1": "i8"}
_SCALARS |= {"f32": "f32", "f64": "f64", "f16": "u16", "bf16": "u16"}


def compile_gpu(
    module: ir.Module,
    target: Target,
    entry: str | None = None,
    pipeline: str | Sequence[compiler.Element] = (),
    matmul_precision: str = "highest",
) -> Program:
    """Lower `module` (versa IR) for `target` (a GPU) and build its Program. `pipeline` runs
    first (versa-level passes); `matmul_precision` is lower-to-nvvm's ("high": TF32)."""
    function = find_function(module, entry)
    name = function.attributes["sym_name"].value
    inputs = [_tensor(TensorSpec.of(t)) for t in function.type.inputs]
    outputs = [_tensor(TensorSpec.of(t)) for t in function.type.results]
    first = compiler.parse_pipeline(pipeline) if isinstance(pipeline, str) else list(pipeline)
    try:
        lower = LowerToNVVM(chip=target.chip, matmul_precision=matmul_precision)
        steps = [*first, *lower.steps()]
    except PassError as err:
        raise CompileError([Diagnostic("error", str(err))]) from None
    compiler.run_passes(module, steps)
    program = Program(name, target.chip, "", inputs, outputs)
    host = find_function(module, name)
    _read_host(host, program)
    program.ptx = compile_ptx(module, target)
    return program


def _tensor(spec: TensorSpec) -> Tensor:
    if not spec.is_static:  # the GPU kernels and the launch plan are sized at compile time
        raise CompileError([Diagnostic("error", f"the GPU target takes static shapes only, got {spec}")])
    return Tensor(spec.shape, spec.dtype.name)


def _element_bytes(memref: ir.MemRefType) -> int:
    """Bytes per element of a device buffer: its type's width (bf16 has no NumPy dtype, and
    may still live inside a program); booleans take a byte."""
    element = memref.element_type
    if isinstance(element, ir.IndexType):
        return 8
    kind = ir.FloatType if isinstance(element, ir.FloatType) else ir.IntegerType
    return max(1, kind(element).width // 8)


def _view(memref_type: ir.Type, buffer: int) -> View:
    memref = ir.MemRefType(memref_type)
    strides, offset = memref.get_strides_and_offset()
    return View(buffer, offset, tuple(memref.shape), tuple(strides))


def _constant(value: ir.Value) -> Scalar:
    owner = value.owner
    if not isinstance(owner, ir.OpView) or owner.operation.name != "arith.constant":
        raise error_at(value.location, "a kernel argument computed on the host is not supported")
    attr, kind = owner.attributes["value"], str(value.type)
    if kind not in _SCALARS:
        raise error_at(value.location, f"kernel arguments of type {kind} are not supported")
    if kind in ("f16", "bf16", "f32", "f64"):
        number = ir.FloatAttr(attr).value
        if kind == "f16":  # half-precision scalars travel as their bits
            return Scalar("u16", int(np.float16(number).view(np.uint16)))
        if kind == "bf16":
            return Scalar("u16", translate.bfloat_bits(number))
        return Scalar(_SCALARS[kind], number)
    return Scalar(_SCALARS[kind], ir.IntegerAttr(attr).value)


def _read_host(host: ir.Operation, program: Program) -> None:
    """The launches and copies of the host function, in order, over numbered buffers."""
    buffers: dict[ir.Value, View] = {}
    for index, argument in enumerate(host.regions[0].blocks[0].arguments):
        buffers[argument] = _view(argument.type, index)
    arguments = len(buffers)

    blobs = functools.cache(lambda: _resource_blobs(host.parent))  # printed once, if ever needed

    def view_of(value: ir.Value) -> View:
        if value not in buffers:
            raise error_at(value.location, "a kernel argument is not a buffer the host knows")
        return buffers[value]

    for op in host.regions[0].blocks[0].operations:
        name = op.operation.name
        if name == "memref.alloc":
            if len(op.operands):
                raise error_at(op.location, "GPU buffers need static shapes")
            buffer = arguments + len(program.buffer_bytes)
            memref = ir.MemRefType(op.results[0].type)
            program.buffer_bytes[buffer] = _nbytes(memref)
            buffers[op.results[0]] = _view(memref, buffer)
        elif name in ("memref.expand_shape", "memref.collapse_shape", "memref.subview",
                      "memref.reinterpret_cast", "memref.cast"):  # fmt: skip
            buffers[op.results[0]] = _view(op.results[0].type, view_of(op.operands[0]).buffer)
        elif name == "memref.get_global":
            buffer = arguments + len(program.buffer_bytes)
            memref = ir.MemRefType(op.results[0].type)
            program.buffer_bytes[buffer] = _nbytes(memref)
            program.constants[buffer] = _global_bytes(host, op.attributes["name"].value, blobs)
            buffers[op.results[0]] = _view(memref, buffer)
        elif name == "memref.copy":
            source, dest = (view_of(v) for v in op.operands)
            memref = ir.MemRefType(op.operands[0].type)
            program.steps.append(Copy(dest, source, _nbytes(memref), _element_bytes(memref)))
        elif name == "gpu.launch_func":
            program.steps.append(_launch(op.opview, view_of))
        elif name not in ("arith.constant", "memref.dealloc", "func.return"):
            raise error_at(op.location, f"'{name}' cannot run on the host of a GPU program")


def _global_bytes(host: ir.Operation, name: str, blobs: Callable[[], dict[str, bytes]]) -> bytes:
    """The initial value of `memref.global @name` as raw bytes (splats expanded)."""
    module = host.parent
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "memref.global" and op.attributes["sym_name"].value == name:
            initial = op.attributes["initial_value"]
            if not isinstance(initial, ir.DenseElementsAttr):  # torch-mlir's bf16 weights
                key = re.match(r"dense_resource<([^>]+)>", str(initial))
                if key is None or key.group(1) not in blobs():
                    raise error_at(op.location, f"cannot read the data of {initial} to copy it to the GPU")
                return blobs()[key.group(1)]
            attr = ir.DenseElementsAttr(initial)
            if isinstance(attr.type.element_type, ir.BF16Type):  # no NumPy dtype: the bits
                values = [attr.get_splat_value()] if attr.is_splat else [attr[i] for i in range(len(attr))]
                bits = np.array([translate.bfloat_bits(ir.FloatAttr(v).value) for v in values], np.uint16)
                return np.broadcast_to(bits, (math.prod(attr.type.shape),)).tobytes()
            values = elements_to_numpy(attr)
            return values.astype(numpy_dtype(attr.type.element_type)).tobytes()
    raise error_at(host.location, f"no memref.global @{name}")


def _resource_blobs(module: ir.Operation) -> dict[str, bytes]:
    """The module's resource blobs (torch-mlir's bf16 weights) by key. The bindings cannot read
    them, but the module prints them once: `{-# dialect_resources: {builtin: {key: "0x<align>
    <data>"}} #-}`, hex, a 4-byte alignment first."""
    found = re.findall(r'^\s*"?([\w.$-]+)"?: "0x([0-9A-Fa-f]*)"', module.get_asm(), re.M)
    return {key: bytes.fromhex(data)[4:] for key, data in found}


def _nbytes(memref: ir.MemRefType) -> int:
    count = 1
    for size in memref.shape:
        count *= size
    return max(1, count * _element_bytes(memref))


def _launch(op, view_of) -> Launch:
    sizes = [
        _constant(v).value
        for v in (op.gridSizeX, op.gridSizeY, op.gridSizeZ, op.blockSizeX, op.blockSizeY, op.blockSizeZ)
    ]
    args = tuple(view_of(v) if isinstance(v.type, ir.MemRefType) else _constant(v) for v in op.kernelOperands)
    shared = _constant(op.dynamicSharedMemorySize).value if op.dynamicSharedMemorySize else 0
    kernel = str(op.kernel).split("::")[0].lstrip("@")
    return Launch(kernel, tuple(sizes[:3]), tuple(sizes[3:]), args, shared)


def compile_ptx(module: ir.Module, target: Target) -> str:
    """PTX for every `gpu.module` of a lowered module, kernels named after their modules."""
    linked: llvm.ModuleRef | None = None
    for op in module.body.operations:
        if op.operation.name != "gpu.module":
            continue
        module_name = op.attributes["sym_name"].value
        body = "\n".join(str(inner) for inner in op.regions[0].blocks[0].operations)
        kernel_module = ir.Module.parse(f"module {{\n{body}\n}}", module.context)
        machine = translate.parse(translate.to_llvm_ir(kernel_module.operation), target)
        for function in machine.functions:
            if not function.is_declaration and not function.name.startswith("__nv"):
                function.name = module_name
        if linked is None:
            linked = machine
        else:
            linked.link_in(machine)
    if linked is None:
        return ""  # e.g. a reshape: only views and copies
    return translate.emit_ptx(linked, target)
