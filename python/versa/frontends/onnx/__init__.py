"""ONNX → versa (`importer.py`: torch-mlir's ONNX importer, `convert-torch-onnx-to-torch`, then
the torch rules).

    module = versa.import_onnx("model.onnx")        # a versa module (weights as constants)

A file imported before is read back from the compile cache by its content (`cache/imports.py`)
without loading torch, onnx or torch-mlir (~3 s of imports: most of a warm start); the
importer's names (`load`, `onnx_to_torch`, ...) load it when first used.
"""

import os

from versa.mlir import ir


def import_onnx(source, input_shapes: dict[str, list[int]] | None = None) -> ir.Module:
    """The versa module of an ONNX model (a path, the file's bytes, or a ModelProto;
    `input_shapes` fixes symbolic input dims)."""
    if isinstance(source, str) and os.path.isfile(source):
        from versa.cache.imports import cached_import

        def convert(context: ir.Context | None) -> ir.Module:
            from .importer import import_uncached

            return import_uncached(source, input_shapes)

        return cached_import(source, "onnx", {"input_shapes": input_shapes or {}}, convert)
    from .importer import import_uncached

    return import_uncached(source, input_shapes)


def __getattr__(name: str):
    import importlib  # not `from . import importer`: that asks this very __getattr__ first

    return getattr(importlib.import_module(f"{__name__}.importer"), name)
