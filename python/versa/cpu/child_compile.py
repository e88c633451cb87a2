"""Static versions of a dynamic module compiled in a child process, so that the compile never
holds the calling process's GIL: a hot shape's compile (`frontends/torch/hot_shapes.py`) beside
calls being served.

Measured (HF BERT-base, 2 cores): compiled in a thread of the serving process, a call beside it
took up to 115x its median (~13 s): LLVM's code generation and upstream passes hold the GIL for
whole seconds, and Versa's own passes are Python. With the child doing the compile but the
parent writing the specialised module's bytecode and hashing it (~1.5 s of GIL for 775 MB), a
call still took 23x its median. So the parent writes the dynamic module's bytecode once
(`DynamicModule`), and each child reads it, makes it static for its shapes
(`versa-specialize-shapes`), hashes it, compiles it at nice 19 into a compile-cache folder and
prints the digest; the parent then loads the code from there as any compile-cache hit (a
library mapped: `cache/jit.py`). The folder is the compile cache's where it is on (the next
process finds the code too), else a temporary one.

    python -m versa.cpu.child_compile MODULE.mlirbc OPTIONS.pickle CACHE_FOLDER SHAPES_JSON
"""

import atexit
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import weakref
from pathlib import Path

from versa import environment
from versa.cache import jit as cached
from versa.cache.store import Store
from versa.mlir import ir
from versa.options import CompileOptions
from versa.version import compiler_digest

Shapes = tuple[tuple[int, ...], ...]


class DynamicModule:
    """A dynamic versa module and its options, written once (bytecode, in a folder of its own
    that lasts as long as this object) for the children that compile its static versions."""

    def __init__(self, module: ir.Module, options: CompileOptions):
        self._module, self._options = module, options
        self._folder: Path | None = None

    def compile(self, shapes: Shapes, where: Path) -> tuple[Store, str, str]:
        """Compile the module made static for `shapes` in a child process, into the compile
        cache in `where` (`cache_folder()`); the Store to load it from, its module digest, and
        what the child logged of its cache write (for a caller that misses it). RuntimeError
        with the child's last words when it fails, or when the child's compiler is not this
        process's: Versa's source changed since this process imported it, so the child's code
        is keyed by another compiler digest and this process would never find it."""
        code, settings = self._written()
        command = [sys.executable, "-m", __name__, str(code), str(settings), str(where), json.dumps(shapes)]
        env = {**os.environ, "VERSA_LOG": "info"}  # its cache write or why not, in stderr
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        _RUNNING.add(child)
        try:
            out, err = child.communicate()
        finally:
            _RUNNING.discard(child)
        if child.returncode:
            last = " ".join((err or out).strip().splitlines()[-3:])
            raise RuntimeError(f"the static compile's process failed ({child.returncode}): {last}")
        said = " ".join([line for line in err.splitlines() if line.startswith("versa.cache")][-2:])
        digest, compiler = out.strip().splitlines()[-1].split()
        if compiler != compiler_digest():
            raise RuntimeError(
                f"Versa's source changed after this process imported it (compiler {compiler_digest()} "
                f"here, {compiler} in a new process): the static compile is keyed by the new "
                "compiler; restart the process to use it"
            )
        return Store(where, environment.cache_size()), digest, said

    def _written(self) -> tuple[Path, Path]:
        if self._folder is None:
            folder = Path(tempfile.mkdtemp(prefix="versa-dynamic-"))
            weakref.finalize(self, shutil.rmtree, folder, ignore_errors=True)  # at exit too
            with open(folder / "module.mlirbc", "wb") as f:
                self._module.operation.write_bytecode(f)
            (folder / "options.pickle").write_bytes(pickle.dumps(self._options))
            self._folder = folder
        return self._folder / "module.mlirbc", self._folder / "options.pickle"


_RUNNING: set[subprocess.Popen] = set()  # children still compiling: killed when this process exits


@atexit.register
def _stop_children() -> None:
    for child in list(_RUNNING):
        child.kill()


def cache_folder() -> tuple[Path, tempfile.TemporaryDirectory | None]:
    """Where the child puts the code: the compile cache's folder, else a temporary one (returned
    too: it lasts while the caller holds it)."""
    store = cached.store()
    if store is not None:
        return store.folder, None
    temporary = tempfile.TemporaryDirectory(prefix="versa-hot-cache-")
    return Path(temporary.name), temporary


def main(argv: list[str]) -> int:
    from versa.cache.keys import module_digest
    from versa.context import make_context
    from versa.cpu import runtime
    from versa.passes.optimize.specialize_shapes import specialize
    from versa.signature import find_function

    code, settings, where, shapes = argv
    os.nice(19)  # the serving process's calls come first
    options: CompileOptions = pickle.loads(Path(settings).read_bytes())
    module = ir.Module.parse(Path(code).read_bytes(), make_context())
    specialize(find_function(module, None), [tuple(s) for s in json.loads(shapes)])
    digest = module_digest(module)
    store = Store(where, environment.cache_size())
    runtime.JitFunction(module, pipeline=options.passes(), module_digest=digest, cache=store)
    print(digest, compiler_digest())  # the parent checks it runs the same compiler
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
