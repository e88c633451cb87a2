"""A model's values as text that two processes which built the same model write alike, and two
that built different ones do not: what `torch_key.py` hashes besides the code.

`repr` will not do: an object's default repr carries its address, a function's too, and a
config object's repr may leave fields out. So values are written by kind, recursively:

    numbers, strings, None        repr (floats round-trip exactly)
    tensors, NumPy arrays         dtype, shape and a sha256 of the bytes (`Tensors`: each tensor
                                  hashed once, a tied weight named by where it was first met)
    an object's field in VOLATILE left out (a per-process value, not a setting)
    torch dtypes, devices, ops    their names
    containers                    their items in order (sets sorted), their class
    classes, enums                the qualified name (the class's code goes to `Code`)
    functions                     the qualified name and defaults (the file goes to `Code`; a
                                  lambda or a closure is refused there), bound methods with
                                  their object, `functools.partial` with its arguments
    a submodule of the model      its name in the model (its own state is written as a module)
    other objects                 their class and the form of their `__dict__` and slots (a
                                  transformers config: every field)

Anything else (a lock, a generator, a C object with no readable state, a module outside the
model, a cycle) raises `Undigestible`: no key is better than a key that misses a difference.
"""

import enum
import functools
import hashlib
import logging
import types
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import torch

from .code_digest import Code, Undigestible, qualified

MAX_VALUES = 500_000  # a larger attribute graph (a tokenizer's vocabulary?) is refused, not hashed
MAX_DEPTH = 40
TORCH_NAMES = (torch.dtype, torch.device, torch.layout, torch.memory_format, torch.qscheme)
OPS = (torch._ops.OpOverload, torch._ops.OpOverloadPacket)
TENSOR_TYPES = (torch.Tensor, torch.nn.Parameter)
SCALARS = (bool, int, float, complex, str, bytes)
# Fields that hold a value of this process, not a setting: transformers' GenerationConfig keeps
# `hash(self)`, which Python salts per process (and generation settings never reach forward).
VOLATILE = frozenset({"_original_object_hash"})


class Tensors:
    """The digest of each tensor met, by its bytes. The bytes are hashed on a pool of threads
    (hashlib lets go of the GIL): `form` names a tensor by its number, `lines` gives each
    number's sha256 once all are done. `bytes` is the total hashed."""

    def __init__(self, pool: ThreadPoolExecutor):
        self._pool = pool
        self._first: dict[int, str] = {}  # id → where it was met first (the model holds them all)
        self._digests: list[Future] = []
        self.bytes = 0

    def form(self, tensor: torch.Tensor | None, path: str) -> str:
        if tensor is None:
            return "None"
        if type(tensor) not in TENSOR_TYPES:  # FakeTensor, DTensor, a quantized or lazy wrapper...
            raise Undigestible(f"{path} is a {type(tensor).__name__}, not a plain tensor")
        if id(tensor) in self._first:
            return f"same as {self._first[id(tensor)]}"
        self._first[id(tensor)] = path
        if tensor.layout != torch.strided or tensor.device.type != "cpu" or tensor.is_quantized:
            raise Undigestible(f"{path} is a {tensor.layout} {tensor.dtype} tensor on {tensor.device}")
        data = tensor.detach().contiguous().reshape(-1).view(torch.uint8).numpy()
        self.bytes += data.nbytes
        self._digests.append(self._pool.submit(_sha256, data))
        return f"{tensor.dtype} {list(tensor.shape)} grad={tensor.requires_grad} #{len(self._digests) - 1}"

    def lines(self) -> list[str]:
        return [f"tensor #{i} {digest.result()}" for i, digest in enumerate(self._digests)]


def _sha256(data: np.ndarray) -> str:
    return hashlib.sha256(data).hexdigest()


class StableForm:
    """`form(value, path)`: the text of `value`, found at `path` in the model (for messages);
    classes and functions met are added to `code`, tensors digested by `tensors`; `modules`
    names the model's submodules by id."""

    def __init__(self, code: Code, tensors: Tensors, modules: dict[int, str]):
        self.code, self.tensors, self.modules = code, tensors, modules
        self._count = 0

    def form(self, value, path: str) -> str:
        return self._form(value, path, ())

    def _form(self, value, path: str, active: tuple[int, ...]) -> str:
        self._count += 1
        if self._count > MAX_VALUES or len(active) > MAX_DEPTH:
            raise Undigestible(f"{path}: too many or too deeply nested values to digest")
        kind = type(value)
        if value is None or kind in SCALARS:
            return repr(value)
        if isinstance(value, enum.Enum):
            self.code.add_class(kind)
            return f"{qualified(kind)}.{value.name}"
        if isinstance(value, torch.Tensor):
            return f"tensor {self.tensors.form(value, path)}"
        if isinstance(value, np.ndarray) and not value.dtype.hasobject:
            digest = hashlib.sha256(np.ascontiguousarray(value).view(np.uint8)).hexdigest()
            return f"ndarray {value.dtype} {list(value.shape)} {digest}"
        if isinstance(value, np.generic) and not isinstance(value, np.object_):
            return f"{value.dtype} {value!r}"
        if isinstance(value, TORCH_NAMES) or isinstance(value, OPS):
            return f"{kind.__name__} {value}"
        if isinstance(value, torch.nn.Module):
            if id(value) not in self.modules:
                raise Undigestible(f"{path} holds a module that is not part of the model")
            return f"module {self.modules[id(value)]!r}"
        if isinstance(value, type):
            self.code.add_class(value)
            return f"class {qualified(value)}"
        if isinstance(value, logging.Logger):  # its handlers are the process's, not the model's
            return f"logger {value.name}"
        return self._callable(value, path, active) or self._container(value, path, active)

    def _callable(self, value, path: str, active: tuple[int, ...]) -> str | None:
        if isinstance(value, types.FunctionType):
            self.code.add_function(value, path)
            defaults = self._form((value.__defaults__, value.__kwdefaults__), path, active)
            return f"function {qualified(value)} {defaults}"
        if isinstance(value, types.BuiltinFunctionType):  # torch.relu, math.sqrt, [].append
            owner = value.__self__
            if owner is None or isinstance(owner, types.ModuleType | type):
                return f"builtin {getattr(owner, '__name__', '')}.{value.__qualname__}"
            return f"builtin {self._form(owner, path, active)}.{value.__name__}"
        if isinstance(value, types.MethodType):
            owner = self._form(value.__self__, path, active)
            return f"method {owner}.{self._form(value.__func__, path, active)}"
        return None

    def _container(self, value, path: str, active: tuple[int, ...]) -> str:
        if id(value) in active:
            raise Undigestible(f"{path} refers back to itself")
        inner, kind = (*active, id(value)), type(value)
        if isinstance(value, functools.partial):
            parts = (value.func, value.args, value.keywords)
            return f"partial {self._form(parts, path, inner)}"
        if kind not in (tuple, list, dict, set, frozenset):
            self.code.add_class(kind)
        if isinstance(value, SCALARS):  # a subclass (a str with methods): the value, then its fields
            base = next(base for base in SCALARS if isinstance(value, base))
            text = f"{qualified(kind)} {base.__repr__(value)}"
        elif isinstance(value, tuple | list):
            items = ", ".join(self._form(v, f"{path}[{i}]", inner) for i, v in enumerate(value))
            text = f"{qualified(kind)}[{items}]"
        elif isinstance(value, dict):
            items = ", ".join(
                f"{self._form(k, path, inner)}: {self._form(v, f'{path}[{k!r}]', inner)}"
                for k, v in value.items()
            )
            text = f"{qualified(kind)}{{{items}}}"
            if factory := getattr(value, "default_factory", None):
                text += f" default {self._form(factory, path, inner)}"
        elif isinstance(value, set | frozenset):
            text = f"{qualified(kind)}{{{', '.join(sorted(self._form(v, path, inner) for v in value))}}}"
        else:
            text = None
        state = _state(value)
        if text is None and state is None:
            raise Undigestible(f"{path} is a {qualified(kind)}, which has no readable state")
        if state:  # an object's fields, or those a container subclass adds
            kept = [(name, v) for name, v in state.items() if name not in VOLATILE]
            fields = ", ".join(f"{name}={self._form(v, f'{path}.{name}', inner)}" for name, v in kept)
            text = f"{text or qualified(kind)}({fields})"
        return text or f"{qualified(kind)}()"


def _state(value) -> dict | None:
    """An object's attributes (`__dict__`, then slots, in definition order); None when it has
    neither: its state is out of Python's sight."""
    state = dict(vars(value)) if hasattr(value, "__dict__") else None
    declared = [getattr(klass, "__slots__", ()) for klass in type(value).__mro__]
    slots = [s for names in declared for s in ((names,) if isinstance(names, str) else names)]
    slots = [s for s in slots if s not in ("__dict__", "__weakref__") and hasattr(value, s)]
    if slots:
        state = {**(state or {}), **{s: getattr(value, s) for s in slots}}
    return state
