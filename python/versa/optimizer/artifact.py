"""The optimizer's artifact for a CPU target: the code the report measured, as a shared library
and its C header.

It is the JIT's own machine code: the module lowered by the same pipeline (OpenMP threads
included), compiled by MLIR's ExecutionEngine as position-independent code, dumped as an object
(`dump_to_object_file`) and linked by `cpu/aot.py` against the OpenMP runtime it calls (found
through the library's DT_RPATH). Not `versa-translate`'s path: that prints LLVM IR as text for
llvmlite, and a model's weights as text are hundreds of MB (ResNet-18: 167 s, against seconds).
"""

import os
import tempfile
from pathlib import Path

from versa import compiler
from versa.cpu import aot, openmp
from versa.diagnostics import CompileError, Diagnostic
from versa.mlir import ExecutionEngine, ir
from versa.signature import find_function

from .profile import copy_module


def write_artifact(source, options, out_dir: str) -> dict:
    """`lib<name>.so` and `<name>.h` in `out_dir`; their names (relative to it)."""
    module = copy_module(source.module)
    entry = aot.entry_of(module, None)
    find_function(module, entry.name).attributes["llvm.emit_c_interface"] = ir.UnitAttr.get(module.context)
    compiler.run_passes(module, options.passes())
    libraries = openmp.shared_libraries() if options.threads > 1 else []
    engine = ExecutionEngine(module, opt_level=3, shared_libs=libraries, enable_pic=True)
    # The engine compiles on the first lookup. Left to `dump_to_object_file`, that lookup is of
    # every function's packed wrapper, and a kernel that layers share (versa-share-functions)
    # is private, so it has none: the dump failed and wrote no object (HF Whisper's encoder).
    if not engine.raw_lookup(f"_mlir_ciface_{entry.name}"):
        raise CompileError([Diagnostic("error", f"JIT compilation failed: no code for '{entry.name}'")])
    name = "".join(c if c.isalnum() else "_" for c in source.name) or "model"
    library, header = f"lib{name}.so", f"{name}.h"
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".tmp-artifact-") as tmp:
        obj = Path(tmp, "model.o")
        engine.dump_to_object_file(str(obj))
        aot.link_shared_file(obj, Path(tmp, library), options.target, library, libraries)
        if libraries:
            runtime = (
                f"The code runs on {options.threads} OpenMP threads: it needs libc, libm and "
                f"{os.path.basename(libraries[0])} (found through the library's DT_RPATH)."
            )
        else:
            runtime = "The code is serial and needs only libc and libm."
        text = aot.header(entry, options.target, source.path, options.opt_level, "versa optimize", runtime)
        Path(tmp, header).write_text(text)
        for file in (library, header):
            os.replace(Path(tmp, file), Path(out_dir, file))
    return {"library": library, "header": header}
