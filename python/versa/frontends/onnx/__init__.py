"""ONNX → versa (`importer.py`: torch-mlir's ONNX importer, `convert-torch-onnx-to-torch`, then
the torch rules).

    module = versa.import_onnx("model.onnx")        # a versa module (weights as constants)
    module = versa.import_onnx("model.onnx", dim_ranges={"batch": (1, 64)})  # symbolic dims: `?`

A file imported before is read back from the compile cache by its content (`cache/imports.py`)
without loading torch, onnx or torch-mlir (~3 s of imports: most of a warm start); the
importer's names (`load`, `onnx_to_torch`, ...) load it when first used.
"""

import os

from versa.mlir import ir


def import_onnx(
    source,
    input_shapes: dict[str, list[int]] | None = None,
    dim_ranges: dict[str, tuple[int, ...]] | None = None,
) -> ir.Module:
    """The versa module of an ONNX model (a path, the file's bytes, or a ModelProto).
    Symbolic input dims ("batch") stay dynamic (`?`, named by their dim_param), each in
    `dim_ranges[name]` = (min, max[, multiple_of]) (default (1, -1): max -1 is unbounded);
    `input_shapes` = {input: [dims]} pins an input's dims instead."""
    if isinstance(source, str) and os.path.isfile(source):
        from versa.cache.imports import cached_import

        def convert(context: ir.Context | None) -> ir.Module:
            from .importer import import_uncached

            return import_uncached(source, input_shapes, dim_ranges)

        key = {"input_shapes": input_shapes or {}}
        if dim_ranges:  # (absent otherwise: the keys of models imported before stay)
            key["dim_ranges"] = {k: list(v) for k, v in dim_ranges.items()}
        return cached_import(source, "onnx", key, convert)
    from .importer import import_uncached

    return import_uncached(source, input_shapes, dim_ranges)


def __getattr__(name: str):
    import importlib  # not `from . import importer`: that asks this very __getattr__ first

    return getattr(importlib.import_module(f"{__name__}.importer"), name)
