"""What one benchmark row hands to every system: the versa program, its inputs, the torch program.

The torch module is both a peer's program (eager, torch.compile, the ONNX export) and, run in
float64, the reference every system's output is checked against, so the two programs of a row
must compute the same function of the same arrays: models copy one set of random weights into
both. `flops` counts contraction multiply-adds (2 per MAC) and rates compute-bound rows; `bytes`
is the data that must move at least once (inputs read, outputs written) and rates memory-bound
rows; `reduction` (the longest sum inside one output element) scales the tolerance.

A real-model row (bench/hf_models.py) has no versa text of its own (`versa_text` None): Versa
compiles its module with `versa.compile`, as a user of a torch model does, and IREE gets
`versa.import_torch`'s program. Inputs that are not floating point (token ids) stay as they are
in the float64 reference.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch


@dataclass
class Case:
    versa_text: str | None  # None: a torch model that Versa compiles with versa.compile
    arrays: list[np.ndarray]  # Versa's (and IREE's) arguments, in order
    module: torch.nn.Module  # the torch program; it takes arrays[:torch_args]
    torch_args: int
    flops: float
    bytes: float
    reduction: int
    numpy_fn: Callable[..., np.ndarray] | None = None  # NumPy peer, where NumPy is natural


class Fn(torch.nn.Module):
    """A plain function as a module, so torch.compile and torch.onnx.export take it."""

    def __init__(self, fn: Callable[..., torch.Tensor]):
        super().__init__()
        self.fn = fn

    def forward(self, *xs: torch.Tensor) -> torch.Tensor:
        return self.fn(*xs)


def rand(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape, dtype=np.float32)
