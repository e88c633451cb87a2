"""What an op's location says of its source: the names in it (torch module paths and FX node
names, ONNX node names) or, for textual IR, its line.

Frontends name ops (`frontends/torch/locations.py`: `loc("layer1.0.conv1"("conv2d_3"(...)))`,
torch-mlir's ONNX importer: `loc("node_17")`), lowering keeps each op's location on what it
becomes (and an inlined row kernel's ops are callsites *at* it), so the same names identify an
op in versa IR and its code after bufferization: the per-kernel profile joins on them.
"""

import re

from versa.mlir import ir

# Every quoted string in order; one followed by `:line` is a file location's, not a NameLoc's.
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"(:\d+)?')
_FILE = re.compile(r'"([^"]*)":(\d+):(\d+)')
_TEXT_BUFFERS = ("-", "")  # the name MLIR's parser gives a buffer of text


def source_names(location: ir.Location | str) -> tuple[str, ...]:
    """The names in `location`, outermost first, each once; none: the first real file's
    `line:col` (ops parsed from a .mlir file), else ()."""
    text = str(location)
    names = tuple(dict.fromkeys(name for name, line in _QUOTED.findall(text) if name and not line))
    if names:
        return names
    for match in _FILE.finditer(text):
        if match.group(2) != "0":
            return (f"line {match.group(2)}:{match.group(3)}",)
    return ()
