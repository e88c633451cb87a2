"""Small modules the torch frontend tests build their cases from."""

from torch import nn


class One(nn.Module):
    """`fn` of one tensor as a module (dynamic_shapes name its one argument's dims)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)
