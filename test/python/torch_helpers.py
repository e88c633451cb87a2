"""What the PyTorch frontend's tests share: a module around a function, and the versa warnings
(ops run eagerly, a partition that failed, an export that went through torch.compile)."""

import contextlib
import warnings

import torch


class Wrap(torch.nn.Module):
    """`fn` as a module, for versa.compile and torch.compile."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


@contextlib.contextmanager
def versa_warnings():
    """The versa warnings raised inside, as strings (pytest runs with -W error)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        messages: list[str] = []
        yield messages
    messages.extend(str(w.message) for w in caught if str(w.message).startswith("versa:"))
