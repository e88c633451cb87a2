"""The key of a torch model's imported module, taken before `torch.export`: what makes two
`versa.compile(model, inputs)` calls, in two processes, "the same model".

A warm start that still exports pays most of its time there (ResNet-50: ~4 of 4.5 s), so the
imported versa module is cached by a key taken from the live `nn.Module`. A stale hit would be a
silently wrong model, the worst outcome, so the key must cover everything the export reads, and
where it cannot, there is no key (`None`, logged at info on `versa.cache`) and the model goes
through the export as before. What the export of `model(*args, **kwargs)` reads, and how:

    the code             the class of every submodule (its MRO), each defining file by content,
                         their packages and those their globals name by a stat of every file,
                         plain class attributes and module globals (`code_digest.py`)
    the weights          every parameter and buffer by name: dtype, shape, requires_grad and a
                         sha256 of its bytes (hashlib over the NumPy view, ~0.8 GB/s a core,
                         on a thread per core); tied weights as such
    the attributes       the rest of each module's `__dict__` (eps, stride, a config object...)
                         and its `training` flag, in a stable form (`stable_form.py`)
    the structure        each submodule's name and class, in order
    the inputs           their pytree structure, each tensor's type, dtype, shape, stride and
                         device (values: the export is traced on fake tensors), the other
                         leaves in stable form (the export specializes on them)
    dynamic_shapes       which dims of which inputs are dynamic, each dim's name and range
                         (`dynamic_form`)
    global state         grad mode, inference mode, default dtype, autocast, deterministic
                         algorithms; global module hooks refuse the key (code outside the model)
    the toolchain        torch's version and git revision, NumPy's, Python's, and
                         `compiler_digest()` (Versa's import and conversion code, torch-mlir)
    the purpose          which import runs (`versa.compile`'s adds `program_as_real`)

No compile option enters: the import reads none (the target only decides whether the export's
module is kept for partitioning); what the options change, the JIT's key (`keys.py`) covers.

Refused, so compiled through the export: anything not an `nn.Module` (an ExportedProgram is
already exported), a ScriptModule, a module with forward or backward hooks, a tensor subclass,
a sparse, quantized or non-CPU tensor, a class defined inside a function or in a session
without a file (`python -c`, a notebook), a lambda or closure the model holds or a class
method assigned at run time, an attribute with no readable state.

What remains outside the key: a module-level value other than a plain one (a dict a program
mutates), environment variables that model code reads, torch's own configuration
(`torch._dynamo.config`, `torch.export` flags), code in a package covered by version that was
edited in place. These are assumed constant between runs; `VERSA_CACHE_DIR=off` disables the
cache wherever that assumption does not hold.
"""

import hashlib
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch
from torch.nn.modules import module as nn_module
from torch.utils import _pytree as pytree

from versa import log
from versa.version import compiler_digest

from .code_digest import Code, Undigestible, qualified
from .stable_form import StableForm, Tensors

FORMAT = "versa-torch-import-key 1"
_log = log.get("cache")

# A module's own bookkeeping, not what its forward reads: tensors and children are written apart,
# state-dict hooks run only for state dicts. Forward and backward hooks must be empty.
PLUMBING = frozenset(
    {
        "_parameters",
        "_buffers",
        "_modules",
        "_state_dict_hooks",
        "_state_dict_pre_hooks",
        "_load_state_dict_pre_hooks",
        "_load_state_dict_post_hooks",
    }
)
HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
GLOBAL_HOOKS = tuple(f"_global{name}" for name in HOOKS)


def model_key(model, args: tuple, kwargs: dict, purpose: str, dynamic_shapes=None) -> str | None:
    """The hex sha256 key of importing `model(*args, **kwargs)` for `purpose`, the dims
    `dynamic_shapes` names dynamic; None (logged at info) when part of it cannot be digested
    reliably."""
    try:
        lines = [f"dynamic_shapes {line}" for line in dynamic_form(dynamic_shapes)]
        lines += _lines(model, args, kwargs)
    except Undigestible as err:
        _log.info("%s: imported module not cached (%s)", type(model).__name__, err)
        return None
    except Exception as err:  # noqa: BLE001  (a key that fails must not fail the compile)
        _log.info("%s: imported module not cached (no key: %r)", type(model).__name__, err)
        return None
    digest = hashlib.sha256()
    for line in [FORMAT, f"purpose {purpose}", *lines]:
        digest.update(line.encode() + b"\n")
    key = digest.hexdigest()
    _log.debug("torch import key %s of %s", key, type(model).__name__)
    return key


def _lines(model, args: tuple, kwargs: dict) -> list[str]:
    if not isinstance(model, torch.nn.Module):
        raise Undigestible(f"a {type(model).__name__} is not an nn.Module")
    if isinstance(model, torch.jit.ScriptModule):
        raise Undigestible("a ScriptModule's code is TorchScript")
    if any(getattr(nn_module, name) for name in GLOBAL_HOOKS):
        raise Undigestible("global module hooks are registered")
    named = list(model.named_modules(remove_duplicate=False))
    modules: dict[int, str] = {}
    for name, module in named:
        modules.setdefault(id(module), name)
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        code, tensors = Code(), Tensors(pool)
        form = StableForm(code, tensors, modules)
        lines = _toolchain() + _inputs(args, kwargs, form)
        for name, module in named:
            lines += _module_lines(name, module, form, tensors, code)
        lines += code.lines()
        lines += tensors.lines()
    _log.debug("torch import key: %d bytes of tensors hashed", tensors.bytes)
    return lines


def _module_lines(
    name: str, module: torch.nn.Module, form: StableForm, tensors: Tensors, code: Code
) -> list[str]:
    where = name or type(module).__name__
    if any(getattr(module, hooks, None) for hooks in HOOKS):
        raise Undigestible(f"{where} has forward or backward hooks")
    code.add_class(type(module))
    code.add_globals(type(module))
    lines = [f"module {name!r} {qualified(type(module))}"]
    lines += [f"  parameter {n} {tensors.form(t, f'{where}.{n}')}" for n, t in module._parameters.items()]
    lines += [f"  buffer {n} {tensors.form(t, f'{where}.{n}')}" for n, t in module._buffers.items()]
    lines.append(f"  children {[(n, c is None) for n, c in module._modules.items()]}")
    for key, value in vars(module).items():
        if key not in PLUMBING and key not in HOOKS:
            lines.append(f"  {key} = {form.form(value, f'{where}.{key}')}")
    return lines


def _inputs(args: tuple, kwargs: dict, form: StableForm) -> list[str]:
    """The inputs as the export sees them: structure, tensor specs, other leaves' values."""
    leaves, spec = pytree.tree_flatten((tuple(args), dict(kwargs)))
    lines = [f"inputs {spec}"]
    for i, leaf in enumerate(leaves):
        if isinstance(leaf, torch.Tensor):
            if type(leaf) not in (torch.Tensor, torch.nn.Parameter):
                raise Undigestible(f"input {i} is a {type(leaf).__name__}, not a plain tensor")
            lines.append(
                f"input {i} {leaf.dtype} {list(leaf.shape)} {list(leaf.stride())} {leaf.device} "
                f"grad={leaf.requires_grad} {leaf.layout}"
            )
        else:
            lines.append(f"input {i} {form.form(leaf, f'input {i}')}")
    return lines


def dynamic_form(dynamic_shapes) -> tuple[str, ...]:
    """torch.export's `dynamic_shapes` in a canonical, hashable form: its structure (which
    inputs, which dims: pytree's spec, keys included), then each dim by what it means: a `Dim`'s
    name and range, a derived dim's expression and its root's, a hint (`Dim.AUTO`) and its
    bounds, a static size. () for None. Two spellings of one meaning may differ (a miss), two
    meanings never coincide. Undigestible for what it cannot spell (a ShapesCollection)."""
    if dynamic_shapes is None:
        return ()
    leaves, spec = pytree.tree_flatten(dynamic_shapes, is_leaf=lambda x: isinstance(x, _DIM_LEAVES))
    return (" ".join(str(spec).split()), *(_dim_form(leaf) for leaf in leaves))


_DIM_LEAVES = (torch.export.Dim, type(torch.export.Dim.AUTO))


def _dim_form(dim) -> str:
    if isinstance(dim, torch.export.Dim):
        if hasattr(dim, "root"):  # 2 * batch + 1: the expression names its root
            return f"derived {dim.__name__} of {_dim_form(dim.root)}"
        if hasattr(dim, "value"):
            return f"static {dim.value}"
        return f"dim {dim.__name__} {dim.min} {dim.max}"
    if isinstance(dim, type(torch.export.Dim.AUTO)):
        return f"hint {dim.type.name} {dim.min} {dim.max}"
    if dim is None or type(dim) is int:
        return f"size {dim}"
    raise Undigestible(f"dynamic_shapes holds a {type(dim).__name__}")


def _toolchain() -> list[str]:
    """Versions of what reads the model, and torch's global modes."""
    return [
        f"compiler {compiler_digest()}",
        f"torch {torch.__version__} {torch.version.git_version}",
        f"numpy {np.__version__}",
        f"python {sys.version}",
        f"grad {torch.is_grad_enabled()} inference {torch.is_inference_mode_enabled()}",
        f"default dtype {torch.get_default_dtype()}",
        f"autocast {torch.is_autocast_enabled('cpu')} {torch.is_autocast_enabled('cuda')}",
        f"deterministic {torch.are_deterministic_algorithms_enabled()}",
    ]
