"""Locations that name the source: each imported op's location leads with the torch module path
that made it and the FX node's name, `loc("layer3.1.conv2"("convolution_12"(callsite(...))))`.

torch-mlir's importer locates an op by its Python stack trace only (file:line callsites), which
says which line of `forward` made an op but not which layer: every `Bottleneck` of a ResNet
runs the same lines. The module path is what a user knows a layer by (the per-layer profile of
`versa optimize`, remarks), and FX records it with each node (`nn_module_stack`). The file
locations stay inside, so diagnostics still point at the user's source line
(`diagnostics.location_line_col` reads the first file location; names do not match it).
"""

from torch_mlir.extras.fx_importer import ContextCache, FxImporter, FxImporterHooks

from versa.mlir import ir


def module_path(node) -> str:
    """The path of the innermost module whose forward made `node` ('' for the root's own code)."""
    stack = node.meta.get("nn_module_stack") or {}
    return next(reversed(stack.values()), ("", None))[0] if stack else ""


class _NamingCache(ContextCache):
    """torch-mlir's ContextCache whose node locations name the module path and node (above)."""

    __slots__ = ()  # the same layout as ContextCache's, so an instance can take this class

    def get_node_location(self, node):
        inner = super().get_node_location(node) or ir.Location.unknown(context=self._c)
        inner = ir.Location.name(node.name, childLoc=inner, context=self._c)
        path = module_path(node)
        return ir.Location.name(path, childLoc=inner, context=self._c) if path else inner


def source_importer(context: ir.Context, hooks: FxImporterHooks) -> FxImporter:
    """torch-mlir's FxImporter whose op locations name the module path and node."""
    importer = FxImporter(context=context, hooks=hooks)
    # FxImporter builds its ContextCache itself, with no hook for locations (and ContextCache
    # has __slots__): the one instance takes the subclass.
    importer._cc.__class__ = _NamingCache
    return importer
