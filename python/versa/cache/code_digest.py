"""The code a torch model runs, for the key of its imported module (`torch_key.py`).

What a forward does is decided by its classes' methods and by every function they call, which
may live anywhere. The digest covers that in two grains:

- by content (sha256 of the bytes): each file that defines one of the model's classes (every
  class of each submodule's MRO), or a function the model holds, or a method of those classes
  (a decorator's wrapper and what it wraps, a method assigned from elsewhere). These are the
  files most likely edited between two runs, and a same-size edit within the file system's
  timestamp granularity must still change the key.
- by a stat of every file (relative path, size, mtime_ns, ctime_ns, inode): the whole top-level
  package of each of those modules, and of every module, class or function their globals
  name, so that a helper the forward calls in another file of the package, or in another
  package the defining module imports, is covered without reading it (transformers: ~2,900
  files, ~30 ms). ctime cannot be set back by a user (`cp -p`, `rsync -a` keep mtime), and an
  atomic rewrite changes the inode.

Packages covered by a version instead are not walked: torch (its version and git revision),
Versa and torch-mlir (`compiler_digest`) and Python's standard library (Python's version).

What no digest of files can see: a class or function built at run time (no file, or a file that
is not its source), a lambda, a closure over anything but functions, classes and plain values
(a decorator's wrapped function is code like any other); these raise `Undigestible` and the
model is compiled through the export. Run-time state of the module that defines a submodule's
class is covered as far as its plain globals (numbers, strings, tuples of them): a flag a program
sets before compiling.
"""

import dataclasses
import hashlib
import os
import sys
import types
from pathlib import Path

VERSIONED = frozenset({"torch", "torchgen", "functorch", "versa", "torch_mlir", "__main__"})
PLAIN = (type(None), bool, int, float, str, bytes)
MAX_PACKAGE_FILES = 100_000  # a walk that large is no package of code: refuse, do not stall


class Undigestible(Exception):
    """Part of a model that no key can pin down: compile it through the export, uncached."""


def qualified(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


def _plain(value) -> bool:
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    return type(value) in PLAIN


class Code:
    """The files and packages of the code a model runs, gathered while its parts are visited;
    `lines()` digests them."""

    def __init__(self):
        self.files: set[str] = set()
        self.packages: set[str] = set()
        self.globals: dict[str, str] = {}  # plain globals, by the name of a submodule class's module
        self._modules: set[str] = set()
        self._classes: set[type] = set()
        self._class_values: list[str] = []  # and plain values closures hold
        self._closures: set[int] = set()

    def add_class(self, cls: type) -> None:
        """`cls` and its bases: their modules, methods, and plain class attributes (a class flag
        set at run time changes the key)."""
        for klass in cls.__mro__:
            if klass is object or klass in self._classes:
                continue
            self._classes.add(klass)
            self.add_module(klass.__module__, f"class {klass.__qualname__}")
            for name, value in vars(klass).items():
                if _plain(value) and not name.startswith("__"):
                    self._class_values.append(f"{qualified(klass)}.{name} = {value!r}")
                for function in _functions(value):
                    self._add_method(klass, name, function)

    def _add_method(self, klass: type, name: str, function: types.FunctionType) -> None:
        while isinstance(function, types.FunctionType):
            if not _generated(klass, function):
                self.add_file(function.__code__.co_filename, f"{klass.__qualname__}.{name}")
            if not function.__qualname__.startswith(f"{klass.__qualname__}."):
                self.add_closure(function, f"{klass.__qualname__}.{name}")  # set from elsewhere
            function = getattr(function, "__wrapped__", None)

    def add_function(self, function: types.FunctionType, path: str) -> None:
        """A Python function the model holds (an attribute): a file of its own, no captured state."""
        if function.__name__ == "<lambda>":
            raise Undigestible(f"{path} is a lambda")
        self.add_closure(function, path)
        self.add_file(function.__code__.co_filename, path)
        self.add_module(function.__module__, path)

    def add_closure(self, function: types.FunctionType, path: str) -> None:
        """What a closure's cells hold (a decorator's wrapped function, a factory's arguments):
        `__class__` (for `super()`) and the function itself pass, functions and classes as code,
        plain values into the digest; anything else has no digest."""
        if id(function) in self._closures:
            return
        self._closures.add(id(function))
        for name, cell in zip(function.__code__.co_freevars, function.__closure__ or (), strict=True):
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell: a name not bound yet
                raise Undigestible(f"{path} is a closure over {name}, unbound") from None
            if name == "__class__" or value is function:
                continue
            if isinstance(value, types.FunctionType) and value.__name__ != "<lambda>":
                self.add_closure(value, f"{path}.{name}")
                self.add_file(value.__code__.co_filename, f"{path}.{name}")
            elif isinstance(value, type):
                self.add_class(value)
            elif _plain(value):
                self._class_values.append(f"{path} closes over {name} = {value!r}")
            else:
                raise Undigestible(f"{path} is a closure over {name}, a {type(value).__name__}")

    def add_module(self, name: str, what: str) -> None:
        """The module `name`: its file by content, its package and those its globals name by stat."""
        module = sys.modules.get(name)
        top = name.partition(".")[0]
        if top in sys.stdlib_module_names or top in VERSIONED - {"__main__"} or name in self._modules:
            return
        file = getattr(module, "__file__", None)
        if not file:
            raise Undigestible(f"{what} is defined in {name}, which has no file (an interactive session?)")
        self.add_file(file, what)
        self._modules.add(name)
        if name != "__main__":
            self.packages.add(top)
        for value in list(vars(module).values()):
            if isinstance(value, types.ModuleType):
                self.packages.add(value.__name__.partition(".")[0])
            elif isinstance(value, type | types.FunctionType) and isinstance(value.__module__, str):
                self.packages.add(value.__module__.partition(".")[0])

    def add_globals(self, cls: type) -> None:
        """The plain globals of the module defining a submodule's class: a flag the program sets
        before compiling. Not a script's (its timings) nor a base class's module's (transformers'
        hub module draws a session id per process)."""
        name = cls.__module__
        if name in self._modules and name != "__main__" and name not in self.globals:
            values = vars(sys.modules[name]).items()
            plain = sorted((k, v) for k, v in values if _plain(v) and not k.startswith("__"))
            self.globals[name] = repr(plain)

    def add_file(self, file: str, what: str) -> None:
        if not os.path.isfile(file):
            raise Undigestible(f"{what} has no source file ({file})")
        self.files.add(os.path.realpath(file))

    def lines(self) -> list[str]:
        lines = [f"file {f} {hashlib.sha256(Path(f).read_bytes()).hexdigest()}" for f in sorted(self.files)]
        lines += [f"globals {name} {plain}" for name, plain in sorted(self.globals.items())]
        lines += sorted(self._class_values)
        for top in sorted(self.packages - VERSIONED):
            if top in sys.stdlib_module_names or top not in sys.modules:
                continue  # a builtin module, or a name that is no module
            lines.append(f"package {top} {_package_digest(sys.modules[top])}")
        return lines


def _generated(klass: type, function: types.FunctionType) -> bool:
    """A dataclass's or namedtuple's method made by `exec` from the fields its file declares."""
    made = function.__code__.co_filename == "<string>"
    own = function.__qualname__.startswith(f"{klass.__qualname__}.")
    return made and own and (dataclasses.is_dataclass(klass) or hasattr(klass, "_fields"))


def _holds(cell: types.CellType, value) -> bool:
    try:
        return cell.cell_contents is value
    except ValueError:  # an empty cell
        return False


def _functions(value) -> list[types.FunctionType]:
    """The Python functions behind a class attribute: a method, static or class method, property."""
    if isinstance(value, property):
        return [f for f in (value.fget, value.fset) if isinstance(f, types.FunctionType)]
    value = getattr(value, "__func__", value)
    return [value] if isinstance(value, types.FunctionType) else []


def _package_digest(module: types.ModuleType) -> str:
    """sha256 over a stat of each file of a package's folders (or of a lone module's file)."""
    roots = list(getattr(module, "__path__", None) or [])
    if not roots:
        file = getattr(module, "__file__", None)
        if not file:
            return "builtin"
        roots = [file]
    digest, count = hashlib.sha256(), 0
    for root in roots:
        for path, stat in _walk(root):
            count += 1
            if count > MAX_PACKAGE_FILES:
                raise Undigestible(f"package {module.__name__} has over {MAX_PACKAGE_FILES} files")
            stamp = f"{stat.st_size} {stat.st_mtime_ns} {stat.st_ctime_ns} {stat.st_ino}"
            digest.update(f"{path[len(root) :]} {stamp}\n".encode())
    return digest.hexdigest()


def _walk(root: str):
    """(path, stat) of each file under `root` (or of `root` itself), sorted, without `__pycache__`;
    links are stat'ed, not followed, so a link cycle ends."""
    if not os.path.isdir(root):
        yield root, os.stat(root)
        return
    with os.scandir(root) as entries:
        found = sorted(entries, key=lambda e: e.name)
    for entry in found:
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__":
                yield from _walk(entry.path)
        else:
            yield entry.path, entry.stat(follow_symlinks=False)
