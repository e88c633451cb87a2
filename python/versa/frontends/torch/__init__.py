"""PyTorch → versa: `import_torch` (the versa module), `compile` (a callable on torch tensors),
`coverage` (each op's path), and the `torch.compile` backend in `dynamo`."""

from . import rules  # noqa: F401  (fills convert.RULES)
from .api import CompiledModule, compile, import_torch
from .coverage import CoverageRow, coverage
from .hot_shapes import HotShapePolicy

__all__ = ["CompiledModule", "CoverageRow", "HotShapePolicy", "compile", "coverage", "import_torch"]
