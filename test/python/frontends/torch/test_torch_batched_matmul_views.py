"""Forms found by the seventh model probe (sequence, recommender and graph models): a consumer
of two batched matmuls (linear attention's backward) and the matrix-transpose views."""

import pytest
import torch
from torch_helpers import compiled_quietly, torch_compile_with_gradients

TOL = {"rtol": 1e-4, "atol": 1e-5}


def two_products(p, q, y1, y2):
    """An add reading two batched matmuls through views: either could take it as its
    epilogue, and versa-codegen once gave it to both (the whole graph then ran eagerly)."""
    return torch.bmm(p, y1).view(4, 4, 20, 8) + torch.bmm(q, y2).view(4, 4, 20, 8)


def test_a_consumer_of_two_matmuls_is_one_epilogue():
    torch.manual_seed(0)
    inputs = (torch.randn(16, 20, 6), torch.randn(16, 20, 6), torch.randn(16, 6, 8), torch.randn(16, 6, 8))
    torch.testing.assert_close(compiled_quietly(two_products, *inputs), two_products(*inputs), **TOL)


def test_linear_attention_trains_with_nothing_eager():
    """(q @ v.mT) * (q @ k.mT): its backward adds two batched matmuls."""
    torch.manual_seed(1)
    inputs = [torch.randn(4, 4, 20, 8) for _ in range(3)]
    got, want, grads = torch_compile_with_gradients(lambda q, k, v: (q @ v.mT) * (q @ k.mT), inputs)
    torch.testing.assert_close(got, want, **TOL)
    for grad, eager in grads:
        torch.testing.assert_close(grad, eager, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("view", ["mT", "mH", "adjoint"])
def test_matrix_transpose_views_convert(view):
    torch.manual_seed(2)
    g, b, v = torch.randn(4, 4, 20, 20), torch.randn(4, 4, 20, 20), torch.randn(4, 4, 20, 8)

    def fn(g, b, v):
        t = g * b
        return (t.adjoint() if view == "adjoint" else getattr(t, view)) @ v

    torch.testing.assert_close(compiled_quietly(fn, g, b, v), fn(g, b, v), **TOL)
