"""A compile in a child process, so that it never holds the calling process's GIL: a hot
shape's static compile (`frontends/torch/hot_shapes.py`) beside calls being served.

Measured (BERT-base, a background thread in the serving process): a call beside the compile
took up to 115x its median, ~13 s, because LLVM's code generation and upstream passes hold the
GIL for whole seconds, and Versa's own passes are Python. A child compiles the module (MLIR
bytecode in a file) into a compile-cache folder at nice 19; the parent then loads it from there
as any compile-cache hit (a library mapped: `cache/jit.py`). The folder is the compile cache's
where it is on (so the next process finds the code too), else a temporary one.

    python -m versa.cpu.child_compile MODULE.mlirbc OPTIONS.pickle CACHE_FOLDER DIGEST
"""

import atexit
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

from versa import environment
from versa.cache import jit as cached
from versa.cache.store import Store
from versa.mlir import ir
from versa.options import CompileOptions


def compile_elsewhere(
    module: ir.Module, options: CompileOptions, digest: str, folder: Path
) -> tuple[Store, str]:
    """Compile `module` in a child process into the compile cache in `folder`; the Store to load
    it from, and what the child logged about its cache write (for a caller that misses it).
    RuntimeError with the child's last words when it fails."""
    with tempfile.TemporaryDirectory(prefix="versa-hot-") as work:
        code, settings = Path(work) / "module.mlirbc", Path(work) / "options.pickle"
        with open(code, "wb") as f:
            module.operation.write_bytecode(f)
        settings.write_bytes(pickle.dumps(options))
        command = [sys.executable, "-m", __name__, str(code), str(settings), str(folder), digest]
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
    said = [line for line in err.splitlines() if line.startswith("versa.cache")]
    return Store(folder, environment.cache_size()), " ".join(said[-2:])


_RUNNING: set[subprocess.Popen] = set()  # children still compiling: killed when this process exits


@atexit.register
def _stop_children() -> None:
    for child in list(_RUNNING):
        child.kill()


def folder() -> tuple[Path, tempfile.TemporaryDirectory | None]:
    """Where the child puts the code: the compile cache's folder, else a temporary one (returned
    too: it lasts while the caller holds it)."""
    store = cached.store()
    if store is not None:
        return store.folder, None
    temporary = tempfile.TemporaryDirectory(prefix="versa-hot-cache-")
    return Path(temporary.name), temporary


def main(argv: list[str]) -> int:
    from versa.context import make_context
    from versa.cpu import runtime

    code, settings, where, digest = argv
    os.nice(19)  # the serving process's calls come first
    options: CompileOptions = pickle.loads(Path(settings).read_bytes())
    context = make_context()
    module = ir.Module.parse(Path(code).read_bytes(), context)
    store = Store(where, environment.cache_size())
    runtime.JitFunction(module, pipeline=options.passes(), module_digest=digest, cache=store)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
