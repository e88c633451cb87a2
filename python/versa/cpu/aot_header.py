"""The C header of a compiled entry (`versa.cpu.aot`): descriptor typedefs, the entry's symbol,
its shapes as macros and `static inline` helpers on plain arrays.

Static shapes are macros (`MLP_ARG0_SHAPE {64, 256}`, `MLP_BUFFER_BYTES`) and `<name>_run` fills
the descriptors from them. With dynamic dims (`tensor<?x64xf32>`, see aot_dims.py) the header
says which dims are dynamic, their symbols and ranges (comment and `<NAME>_DIM_<SYM>_MIN`/`_MAX`/
`_MULTIPLE_OF` macros), and writes `const char *<name>_shapes(arg sizes..., result sizes...)`:
the checks Versa's JIT makes before a call, and the results' sizes the caller must allocate.
The checks are the header's, not the entry's: `_mlir_ciface_<name>` keeps MLIR's C interface
(void, descriptors only) so any MLIR-aware caller still links it, a refusal is a C string the
caller reads before it allocates anything, and code that checked once (a fixed batch) pays
nothing per call; `<name>_run` checks, then calls, and returns the same message.
"""

import math
from dataclasses import dataclass

import numpy as np

from versa.cpu import aot_dims
from versa.targets import Target

# Element type → its C type. f16 crosses as its IEEE bits, i1 as one byte (LLVM stores it so),
# ui8 (quantized data: i8 once lowered) as the unsigned byte it is to the caller.
C_TYPES = {
    "f32": "float",
    "f64": "double",
    "f16": "uint16_t",
    "i64": "int64_t",
    "i32": "int32_t",
    "i8": "int8_t",
    "ui8": "uint8_t",
    "i1": "uint8_t",
}


@dataclass(frozen=True)
class Buffer:
    """One argument or result of the entry: a C-contiguous array (None: a dynamic dim)."""

    shape: tuple[int | None, ...]
    element: str  # the MLIR element type: f32, i8, ...
    dtype: np.dtype

    @property
    def c_type(self) -> str:
        return C_TYPES[self.element]

    @property
    def struct(self) -> str:
        return f"versa_memref_{len(self.shape)}d_{self.element}"

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def strides(self) -> tuple[int, ...]:
        return tuple(math.prod(self.shape[i + 1 :]) for i in range(len(self.shape)))

    @property
    def text(self) -> str:
        return f"{self.element}[{'x'.join('?' if d is None else str(d) for d in self.shape)}]"


@dataclass(frozen=True)
class Entry:
    """The entry point's C interface: its name and buffers (inputs, then results), and what
    its dynamic dims are (None: all static)."""

    name: str
    inputs: tuple[Buffer, ...]
    outputs: tuple[Buffer, ...]
    dynamic: aot_dims.Dynamic | None = None

    @property
    def symbol(self) -> str:
        return f"_mlir_ciface_{self.name}"


# The C header ------------------------------------------------------------------------------------


def _struct(buffer: Buffer) -> str:
    """The descriptor typedef, guarded so that two models' headers can share one unit."""
    name, t, rank = buffer.struct, buffer.c_type, len(buffer.shape)
    fields = [f"{t} *allocated;", f"{t} *aligned;", "int64_t offset;"]
    fields += [f"int64_t sizes[{rank}];", f"int64_t strides[{rank}];"] if rank else []
    body = "".join(f"  {f}\n" for f in fields)
    guard = name.upper()
    return f"#ifndef {guard}\n#define {guard}\ntypedef struct {name} {{\n{body}}} {name};\n#endif\n"


def _macros(prefix: str, label: str, buffer: Buffer) -> list[str]:
    shape = ", ".join(map(str, buffer.shape))
    lines = [f"#define {prefix}_{label}_RANK {len(buffer.shape)}"]
    lines += [f"#define {prefix}_{label}_SHAPE {{{shape}}}"] if buffer.shape else []
    return [*lines, f"#define {prefix}_{label}_SIZE {buffer.size} /* elements */"]


def _initializer(buffer: Buffer, pointer: str) -> str:
    cast = f"({buffer.c_type} *){pointer}"
    parts = [cast, cast, "0"]
    if buffer.shape:
        parts += [
            "{" + ", ".join(map(str, buffer.shape)) + "}",
            "{" + ", ".join(map(str, buffer.strides)) + "}",
        ]
    return "{" + ", ".join(parts) + "}"


def _wrap(head: str, items: list[str], tail: str = ");", indent: str = "") -> str:
    """`head(items...)tail` on one line when it fits in 100 columns, else one item per line."""
    line = f"{indent}{head}({', '.join(items)}{tail}"
    if len(line) <= 100:
        return line
    return f"{indent}{head}(\n" + ",\n".join(f"{indent}    {item}" for item in items) + tail


SERIAL = "The code is serial and needs only libc and libm (it may malloc temporaries)."


def header(
    entry: Entry,
    target: Target,
    source: str,
    opt: int = 3,
    made_by: str = "versa-translate",
    runtime: str = SERIAL,
) -> str:
    """The C header of a compiled entry: descriptors, the symbol, shapes, two call helpers;
    `runtime` says what the code needs to run (a sentence of the header's comment)."""
    if entry.dynamic is not None:
        return dynamic_header(entry, target, source, opt, made_by, runtime)
    name, prefix, n_in = entry.name, entry.name.upper(), len(entry.inputs)
    buffers = [*entry.inputs, *entry.outputs]
    labels = [f"arg{i}" for i in range(n_in)] + [f"result{i}" for i in range(len(entry.outputs))]
    pairs = list(zip(labels, buffers, strict=True))
    shapes = [f"{label}: {b.element}[{'x'.join(map(str, b.shape))}]" for label, b in pairs]
    macros = [f"#define {prefix}_NUM_INPUTS {n_in}", f"#define {prefix}_NUM_OUTPUTS {len(entry.outputs)}"]
    for label, buffer in pairs:
        macros += _macros(prefix, label.upper(), buffer)
    sizes = ", ".join(str(b.size * b.dtype.itemsize) for b in buffers) or "0"
    macros.append(f"#define {prefix}_BUFFER_BYTES {{{sizes}}} /* inputs, then outputs */")
    params = [f"{b.struct} *{label}" for label, b in pairs] or ["void"]
    plain = [f"{'const ' if i < n_in else ''}{b.c_type} *{label}" for i, (label, b) in enumerate(pairs)]
    descriptors = "".join(f"  {b.struct} d_{label} = {_initializer(b, label)};\n" for label, b in pairs)
    call = _wrap(entry.symbol, [f"&d_{label}" for label in labels], indent="  ")
    packed = _wrap(f"{name}_run", [f"({b.c_type} *)buffers[{i}]" for i, b in enumerate(buffers)], indent="  ")
    guard = f"VERSA_{prefix}_H"
    return f"""\
/* The C interface of '{name}', compiled ahead of time by {made_by} from {source}
 * (target {target.name}, -O{opt}); generated, do not edit.
 *
 * {name}({", ".join(shapes[:n_in])})
 *   -> {", ".join(shapes[n_in:]) or "nothing"}
 * Inputs, then one caller-allocated output per result: C-contiguous buffers of the shapes
 * below. {runtime} */
#ifndef {guard}
#define {guard}

#include <stdint.h>

#ifdef __cplusplus
extern "C" {{
#endif

/* MLIR's memref descriptor: the buffer, its offset, sizes and strides (in elements). */
{"".join(dict.fromkeys(_struct(b) for b in buffers))}
{chr(10).join(macros)}

{_wrap(f"void {entry.symbol}", params)}

/* {entry.symbol} on plain C-contiguous arrays. */
{_wrap(f"static inline void {name}_run", plain or ["void"], ") {")}
{descriptors}{call}
}}

/* {name}_run with its buffers in one array (inputs, then outputs), for generic drivers. */
static inline void {name}_run_packed(void *const *buffers) {{
{"  (void)buffers;" + chr(10) if not buffers else ""}{packed}
}}

#ifdef __cplusplus
}}
#endif

#endif /* {guard} */
"""


# With dynamic dims ---------------------------------------------------------------------------------

_HELPERS = """\
#ifndef VERSA_FLOORDIV_DEFINED
#define VERSA_FLOORDIV_DEFINED
/* Python's floor division and remainder (the shape rules'); 0 for a zero divisor. */
static inline int64_t versa_floordiv(int64_t a, int64_t b) {
  return b == 0 ? 0 : a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
static inline int64_t versa_mod(int64_t a, int64_t b) { return a - b * versa_floordiv(a, b); }
#endif
"""


def _dims_text(dims, names: dict[str, str]) -> str:
    return "[" + ", ".join(names[d] if isinstance(d, str) else str(d) for d in dims) + "]"


def _range_text(symbol: str, r) -> str:
    upper = "" if r.maximum is None else f" <= {r.maximum}"
    multiple = f", a multiple of {r.multiple}" if r.multiple != 1 else ""
    return f"{r.minimum} <= {symbol}{upper}{multiple}"


def _argument_checks(dynamic: aot_dims.Dynamic, names: dict[str, str]) -> list[str]:
    """C statements: each argument dim against its static size, symbol and range, as the JIT."""
    ranges, seen, lines = dict(dynamic.ranges), {}, []
    for i, dims in enumerate(dynamic.arguments):
        for d, entry in enumerate(dims):
            size, where = f"arg{i}_sizes[{d}]", f"argument {i} dim {d}"
            if isinstance(entry, int):
                lines.append(f'  if ({size} != {entry}) return "{where}: the function takes {entry}";')
                continue
            var = f"dim_{names[entry]}"
            if entry in seen:
                first = "argument {} dim {}".format(*seen[entry])
                message = aot_dims.c_string(f"{where}: symbol '{entry}' differs from {first}")
                lines.append(f"  if ({size} != {var}) return {message};")
                continue
            seen[entry] = (i, d)
            lines.append(f"  const int64_t {var} = {size};")
            r = ranges.get(entry)
            tests = [
                (f"{var} < {r.minimum}", f"is below the minimum {r.minimum}")
                if r
                else (f"{var} < 0", "is negative")
            ]
            if r and r.maximum is not None:
                tests.append((f"{var} > {r.maximum}", f"exceeds the maximum {r.maximum}"))
            if r and r.multiple != 1:
                tests.append((f"{var} % {r.multiple} != 0", f"is not a multiple of {r.multiple}"))
            for test, why in tests:
                lines.append(f"  if ({test}) return {aot_dims.c_string(f'{where} {why} of {entry!r}')};")
    return lines + [f"  (void)dim_{names[s]};" for s in seen]


def _dynamic_comment(entry: Entry, names: dict[str, str]) -> list[str]:
    """The header comment's lines on the dims: each buffer's, then each symbol's range."""
    dynamic = entry.dynamic
    lines = [f" *   arg{i}: {_dims_text(dims, names)}" for i, dims in enumerate(dynamic.arguments)]
    outcomes = aot_dims.ok_results(dynamic.tree)
    if len(outcomes) == 1:
        for i, dims in enumerate(next(iter(outcomes))):
            lines.append(f" *   result{i}: [{', '.join(aot_dims.render(d, names.get) for d in dims)}]")
    elif entry.outputs:
        lines.append(f" *   results: as {entry.name}_shapes gives them (they depend on the case)")
    ranges = dict(dynamic.ranges)
    for s in dynamic.symbols():
        lines.append(f" *   {_range_text(names[s], ranges[s]) if s in ranges else f'0 <= {names[s]}'}")
    return lines


def _dynamic_macros(entry: Entry, labelled: list[tuple[str, Buffer]], names: dict[str, str]) -> list[str]:
    prefix, ranges = entry.name.upper(), dict(entry.dynamic.ranges)
    macros = [f"#define {prefix}_DYNAMIC_DIMS 1", f"#define {prefix}_NUM_INPUTS {len(entry.inputs)}"]
    macros.append(f"#define {prefix}_NUM_OUTPUTS {len(entry.outputs)}")
    for label, b in labelled:
        head = f"#define {prefix}_{label.upper()}"
        macros.append(f"{head}_RANK {len(b.shape)}")
        macros.append(f"{head}_ELEMENT_BYTES {b.dtype.itemsize} /* {b.c_type} */")
        if b.shape:
            dims = ", ".join("-1" if d is None else str(d) for d in b.shape)
            macros.append(f"{head}_DIMS {{{dims}}} /* -1: dynamic */")
    for s in entry.dynamic.symbols():
        r, head = ranges.get(s), f"#define {prefix}_DIM_{names[s].upper()}"
        maximum = -1 if r is None or r.maximum is None else r.maximum
        macros += [f"{head}_MIN {r.minimum if r else 0}", f"{head}_MAX {maximum} /* -1: unbounded */"]
        macros.append(f"{head}_MULTIPLE_OF {r.multiple if r else 1}")
    return macros


def _run(entry: Entry, args: list[tuple[str, Buffer]], results: list[tuple[str, Buffer]]) -> str:
    """`<name>_run`: check and size, fill the descriptors, call."""
    name, labelled = entry.name, args + results
    params = [p for label, b in args for p in (f"const {b.c_type} *{label}", f"const int64_t *{label}_sizes")]
    params += [f"{b.c_type} *{label}" for label, b in results]
    lines = [f"  int64_t {label}_sizes[{max(len(b.shape), 1)}];" for label, b in results]
    call = _wrap(f"{name}_shapes", [f"{label}_sizes" for label, _ in labelled], ")")
    lines += [f"  const char *error = {call};", "  if (error) return error;"]
    lines += [f"  {b.struct} d_{label} = {_dynamic_initializer(b, label)};" for label, b in labelled]
    lines += [_wrap(entry.symbol, [f"&d_{label}" for label, _ in labelled], indent="  "), "  return NULL;"]
    head = _wrap(f"static inline const char *{name}_run", params or ["void"], ") {")
    return head + "\n" + "\n".join(lines) + "\n}"


def _packed(entry: Entry) -> str:
    """`<name>_shapes_packed` and `<name>_run_packed`: arrays of arrays, for generic drivers."""
    name, n_in, n_out = entry.name, len(entry.inputs), len(entry.outputs)
    buffers = [*entry.inputs, *entry.outputs]
    shapes = [f"sizes[{i}]" for i in range(n_in)] + [f"result_sizes[{i}]" for i in range(n_out)]
    run = [f"({b.c_type} *)buffers[{i}]" for i, b in enumerate(buffers)]
    run[:n_in] = [item for i in range(n_in) for item in (run[i], f"sizes[{i}]")]
    text = _wrap(
        f"static inline const char *{name}_shapes_packed",
        ["const int64_t *const *sizes", "int64_t *const *result_sizes"],
        ") {",
    )
    text += "\n" + "".join(f"  (void){v};\n" for v, n in (("sizes", n_in), ("result_sizes", n_out)) if not n)
    text += _wrap(f"return {name}_shapes", shapes, indent="  ") + "\n}\n"
    text += _wrap(
        f"static inline const char *{name}_run_packed",
        ["void *const *buffers", "const int64_t *const *sizes"],
        ") {",
    )
    text += "\n" + "".join(
        f"  (void){v};\n" for v, n in (("buffers", len(buffers)), ("sizes", n_in)) if not n
    )
    return text + _wrap(f"return {name}_run", run, indent="  ") + "\n}"


def dynamic_header(entry: Entry, target: Target, source: str, opt: int, made_by: str, runtime: str) -> str:
    """`header` of an entry with dynamic dims (see the module's doc)."""
    name, n_in = entry.name, len(entry.inputs)
    names = aot_dims.c_names(list(entry.dynamic.symbols()))
    args = [(f"arg{i}", b) for i, b in enumerate(entry.inputs)]
    results = [(f"result{i}", b) for i, b in enumerate(entry.outputs)]
    labelled = args + results
    signature = [f"{label}: {b.text}" for label, b in labelled]
    params = [f"{b.struct} *{label}" for label, b in labelled] or ["void"]
    size_params = [f"const int64_t *{label}_sizes" for label, _ in args]
    size_params += [f"int64_t *{label}_sizes" for label, _ in results]
    body = [f"  (void){label}_sizes;" for label, b in labelled if not b.shape]
    body += _argument_checks(entry.dynamic, names)
    body += aot_dims.c_tree(entry.dynamic.tree, lambda s: f"dim_{names[s]}", source)
    structs = "".join(dict.fromkeys(_struct(b) for _, b in labelled))
    guard, nl = f"VERSA_{name.upper()}_H", "\n"
    return f"""\
/* The C interface of '{name}', compiled ahead of time by {made_by} from {source}
 * (target {target.name}, -O{opt}); generated, do not edit.
 *
 * {name}({", ".join(signature[:n_in])})
 *   -> {", ".join(signature[n_in:]) or "nothing"}
 * Inputs, then one caller-allocated output per result: C-contiguous buffers. Dims (a name: a
 * dynamic dim, the same size wherever it appears):
{nl.join(_dynamic_comment(entry, names))}
 * The entry trusts its descriptors' sizes (a wrong one reads or writes out of bounds): check a
 * call's sizes with {name}_shapes, which also gives the results' sizes, or call {name}_run,
 * which checks them. {runtime} */
#ifndef {guard}
#define {guard}

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {{
#endif

/* MLIR's memref descriptor: the buffer, its offset, sizes and strides (in elements). */
{structs}
{_HELPERS}
{nl.join(_dynamic_macros(entry, labelled, names))}

{_wrap(f"void {entry.symbol}", params)}

/* Checks a call's argument sizes as Versa's JIT does (static dims, symbols, ranges, the ops'
 * shape rules) and writes each result's sizes: NULL, or why the call is refused. */
{_wrap(f"static inline const char *{name}_shapes", size_params or ["void"], ") {")}
{nl.join(body)}
}}

/* {name}_shapes, then {entry.symbol} on plain C-contiguous arrays (each result holding the
 * elements {name}_shapes gives): NULL, or why the call is refused (then nothing ran). */
{_run(entry, args, results)}

/* {name}_shapes and {name}_run with their arrays in arrays (inputs, then outputs). */
{_packed(entry)}

#ifdef __cplusplus
}}
#endif

#endif /* {guard} */
"""


def _dynamic_initializer(buffer: Buffer, label: str) -> str:
    cast = f"({buffer.c_type} *){label}"
    parts = [cast, cast, "0"]
    rank = len(buffer.shape)
    if rank:
        sizes = [f"{label}_sizes[{d}]" for d in range(rank)]
        strides = [" * ".join(sizes[d + 1 :]) or "1" for d in range(rank)]
        parts += ["{" + ", ".join(sizes) + "}", "{" + ", ".join(strides) + "}"]
    return "{" + ", ".join(parts) + "}"
