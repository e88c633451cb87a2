"""versa-import: models from other frameworks as versa IR.

    versa-import model.onnx -o model.mlir        # ONNX, through torch-mlir's importer
    versa-import torch.mlir                      # torch-dialect IR (torch-mlir's output)
    versa-import model.onnx --coverage           # each (op, dtype, rank) and the path it takes
    versa-import model.onnx --dim-range batch=1,64   # a symbolic dim's range (it stays dynamic)
    versa-import model.onnx --input-shape x=1,3,224,224   # or its dims pinned (static)

Unsupported ops fail with one error listing every one of them, their counts and places.
"""

import argparse
import sys

from versa.compiler import Chunk, decode, parse_module
from versa.diagnostics import CompileError
from versa.mlir import ir
from versa.tools.common import ArgumentParser, ToolError, input_shapes, read_input, tool_main, write_output


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = ArgumentParser(prog="versa-import", description=__doc__.splitlines()[0])
    parser.add_argument("input", nargs="?", default="-", help=".onnx, or torch-dialect .mlir ('-': stdin)")
    parser.add_argument("-o", dest="output", default="-", help="output file ('-': stdout, the default)")
    parser.add_argument("--coverage", action="store_true", help="list each op's path instead of converting")
    parser.add_argument(
        "--input-shape",
        action="append",
        default=[],
        metavar="NAME=D0,D1,...",
        help="static dims for an ONNX input with symbolic ones (repeatable; the others stay dynamic)",
    )
    parser.add_argument(
        "--dim-range",
        action="append",
        default=[],
        metavar="NAME=MIN,MAX[,K]",
        help="the range of an ONNX symbolic dim (max -1: unbounded; K: a multiple of K; default 1,-1)",
    )
    return parser.parse_args(argv)


def dim_ranges(specs: list[str]) -> dict[str, tuple[int, ...]]:
    """`--dim-range NAME=MIN,MAX[,K]` flags as {name: bounds}; ToolError if malformed."""
    ranges = {}
    for spec in specs:
        name, _, bounds = spec.rpartition("=")
        try:
            ranges[name] = tuple(int(b) for b in bounds.split(","))
        except ValueError:
            ranges[name] = ()
        if not name or len(ranges[name]) not in (2, 3):
            raise ToolError(f"--dim-range {spec!r}: expected NAME=MIN,MAX or NAME=MIN,MAX,K with integers")
    return ranges


def _is_onnx(name: str, data: bytes) -> bool:
    text = data.lstrip().removeprefix(b"\xef\xbb\xbf").lstrip()  # a UTF-8 byte order mark is text
    return name.endswith(".onnx") or not text[:1].isascii() or b"\x00" in data[:64]


def _torch_module(
    name: str, data: bytes, shapes: dict[str, list[int]] | None = None, ranges: dict | None = None
) -> ir.Module:
    from versa.frontends import onnx as onnx_frontend
    from versa.frontends.torch.importer import make_torch_context

    context = make_torch_context()
    if _is_onnx(name, data):
        return onnx_frontend.onnx_to_torch(onnx_frontend.load(data, shapes, ranges), context)
    return parse_module(Chunk(decode(data), 1), context)


def run(argv: list[str]) -> int:
    args = parse_args(argv)
    name, data = read_input(args.input)
    if args.output != "-" and args.output == args.input:
        raise ToolError("the output file would overwrite the input")
    try:
        from versa.frontends.torch import rules  # noqa: F401  (fills the rule table)
        from versa.frontends.torch.convert import convert_module
        from versa.frontends.torch.coverage import coverage_of, format_coverage
    except ImportError as err:
        raise ToolError(f"the frontends need torch and onnx (pip install 'versa[onnx]'): {err}") from None
    try:
        module = _torch_module(name, data, input_shapes(args.input_shape), dim_ranges(args.dim_range))
        if args.coverage:
            output = format_coverage(coverage_of(module))
        elif _is_onnx(name, data):  # an error says how to pin dynamic dims
            from versa.frontends.onnx import to_versa

            output = str(to_versa(module))
        else:
            output = str(convert_module(module))
    except CompileError as err:
        sys.stderr.write(err.format(name) + "\n")
        return 1
    write_output(args.output, output)
    return 0


def main() -> None:
    tool_main(run)


if __name__ == "__main__":
    main()
