"""A compiled GPU program as plain data: PTX and the host steps that launch it.

The host function that `lower-to-nvvm` leaves holds only buffers, views, copies and
`gpu.launch_func` ops with static sizes, so it is read once at compile time into this list of
steps (Triton's launcher does the same with its grid). The plan imports neither MLIR nor CUDA:
it is saved as JSON next to the PTX and run by `versa.gpu.driver` on any machine with a GPU.
"""

import base64
import json
from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class Tensor:
    shape: tuple[int, ...]
    dtype: str  # a NumPy dtype name


@dataclass(frozen=True)
class View:
    """A memref kernel argument: a buffer and the strided layout (in elements) seen through it."""

    buffer: int
    offset: int
    sizes: tuple[int, ...]
    strides: tuple[int, ...]


@dataclass(frozen=True)
class Scalar:
    ctype: str  # "i8", "i16", "i32", "i64", "f32", "f64", "u16" (f16/bf16 bits)
    value: float | int


@dataclass(frozen=True)
class Launch:
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: tuple[View | Scalar, ...]
    shared_bytes: int = 0


@dataclass(frozen=True)
class Copy:
    """A contiguous device-to-device copy (what `memref.copy` of identity layouts is)."""

    target: View
    source: View
    nbytes: int
    itemsize: int  # the element size: view offsets are in elements


@dataclass
class Program:
    """Buffers 0..len(inputs)+len(outputs)-1 are the arguments (inputs, then results); the
    others are intermediates of `buffer_bytes` bytes, allocated once per loaded program, and
    the constants among them are filled with their data then."""

    name: str
    chip: str
    ptx: str
    inputs: list[Tensor]
    outputs: list[Tensor]
    buffer_bytes: dict[int, int] = field(default_factory=dict)
    constants: dict[int, bytes] = field(default_factory=dict)  # initial data of constant buffers
    steps: list[Launch | Copy] = field(default_factory=list)

    def to_json(self) -> str:
        constants = {k: base64.b64encode(v).decode() for k, v in self.constants.items()}
        return json.dumps(asdict(self) | {"steps": [_tagged(s) for s in self.steps], "constants": constants})

    @staticmethod
    def from_json(text: str) -> "Program":
        data = json.loads(text)
        program = Program(
            data["name"], data["chip"], data["ptx"],
            [Tensor(tuple(t["shape"]), t["dtype"]) for t in data["inputs"]],
            [Tensor(tuple(t["shape"]), t["dtype"]) for t in data["outputs"]],
            {int(k): v for k, v in data["buffer_bytes"].items()},
            {int(k): base64.b64decode(v) for k, v in data["constants"].items()},
        )  # fmt: skip
        program.steps = [_untagged(s) for s in data["steps"]]
        return program


def _tagged(step: Launch | Copy) -> dict:
    return {"kind": type(step).__name__} | asdict(step)


def _arg(data: dict) -> View | Scalar:
    if "buffer" in data:
        return View(data["buffer"], data["offset"], tuple(data["sizes"]), tuple(data["strides"]))
    return Scalar(data["ctype"], data["value"])


def _untagged(data: dict) -> Launch | Copy:
    if data["kind"] == "Copy":
        return Copy(_arg(data["target"]), _arg(data["source"]), data["nbytes"], data["itemsize"])
    return Launch(
        data["kernel"], tuple(data["grid"]), tuple(data["block"]),
        tuple(_arg(a) for a in data["args"]), data["shared_bytes"],
    )  # fmt: skip
