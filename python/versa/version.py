"""Which Versa is running: its installed version and digests of its source.

What Versa records for later runs (tuning points, compiled code in the cache) is a fact about
the code that produced it. The version alone does not say which code that is: a development
checkout (an editable install) changes its source without changing its version. So a record is
keyed by the version *and* a digest of the source files that decide its content, read once per
process (Versa's whole source is ~2 MB: a few milliseconds).
"""

import hashlib
import importlib.metadata
import importlib.util
from functools import cache
from pathlib import Path

# The packages whose code decides what a compile produces (versa.tools only drives them).
COMPILER_PACKAGES = ("versa", "versa.dialects", "versa.passes")


@cache
def version() -> str:
    """Versa's version, from the installed metadata (pyproject's, not a copy of it)."""
    return importlib.metadata.version("versa")


def folder(package: str) -> Path:
    """The folder of an importable package (found, not imported)."""
    spec = importlib.util.find_spec(package)
    return Path(next(iter(spec.submodule_search_locations)))


@cache
def source_digest(packages: tuple[str, ...], recursive: bool = True) -> str:
    """sha256 (hex) over the `.py` files of `packages`: each file's path relative to its
    package folder, then its bytes, in sorted order (subfolders too when `recursive`)."""
    digest = hashlib.sha256()
    for package in packages:
        root = folder(package)
        for path in sorted(root.glob("**/*.py" if recursive else "*.py")):
            digest.update(path.relative_to(root).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


@cache
def compiler_digest() -> str:
    """`<version>+<digest>` of everything that decides compiled code: Versa's compiler source
    and the versions of the MLIR (torch-mlir) and LLVM (llvmlite) it runs."""
    tools = ",".join(f"{name} {importlib.metadata.version(name)}" for name in ("torch-mlir", "llvmlite"))
    digest = hashlib.sha256(f"{source_digest(COMPILER_PACKAGES)}|{tools}".encode()).hexdigest()
    return f"{version()}+{digest[:16]}"
