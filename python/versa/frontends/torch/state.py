"""Module state under `versa.compile`: what the forward mutates is read at each call and written
back after it, as eager does.

torch.export functionalizes a mutation. `self.steps += 1` or `self.cache[:, pos] = v` reads the
buffer as an input (`b_steps`, kind BUFFER) and returns its new value as an extra output ahead of
the model's own (kind BUFFER_MUTATION, target `steps`); a mutated user input (`x.add_(1)`) is a
USER_INPUT_MUTATION output. The import makes weights and the other buffers literals, but a
mutated buffer (or parameter) stays an argument of the compiled function: baked in, every call
would start again from the state at compile time. The function then takes the mutated state
first and the user's tensors after, and returns the new state first: `State` supplies the one
and copies the other into the module's tensors (an export's state_dict holds the module's own).
The partitioned path keeps these buffers inputs too (`partition.mutated_attributes`).
"""

import numpy as np
import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, OutputKind

from versa.diagnostics import CompileError, Diagnostic

from .executable import to_numpy
from .importer import STATE_INPUTS, STATE_MUTATIONS, mutated_state

_MUTATIONS = (*STATE_MUTATIONS, OutputKind.USER_INPUT_MUTATION)


class State:
    """The mutated state a compiled export reads (`arguments`) and writes (`write_back`)."""

    def __init__(self, program: ExportedProgram):
        signature = program.graph_signature
        tensors = {**program.constants, **program.state_dict}  # non-persistent buffers: constants
        mutated = mutated_state(program)
        # the function's arguments: the other parameters and buffers are literals (a norm layer's
        # weight and bias come before its running statistics)
        read = [s for s in signature.input_specs if s.kind in STATE_INPUTS and s.target in mutated]
        inputs = [s for s in signature.input_specs if s in read or s.kind == InputKind.USER_INPUT]
        if read and inputs[: len(read)] != read:
            raise _unsupported("its mutated buffers are not its first inputs")
        outputs = signature.output_specs
        writes = [s for s in outputs if s.kind in _MUTATIONS]
        if outputs[: len(writes)] != writes or any(
            s.kind != OutputKind.USER_OUTPUT for s in outputs[len(writes) :]
        ):
            raise _unsupported("it returns more than its mutations and its outputs")
        user = [s.arg.name for s in inputs if s.kind == InputKind.USER_INPUT]
        self.reads: list[torch.Tensor] = [tensors[s.target] for s in read]
        # Each mutation's destination: a buffer, or the position of a user input among the leaves.
        self.writes: list[torch.Tensor | int] = [
            user.index(s.target) if s.kind == OutputKind.USER_INPUT_MUTATION else tensors[s.target]
            for s in writes
        ]

    def __bool__(self) -> bool:
        return bool(self.writes)

    def arguments(self, leaves: list) -> list:
        """The state's current values ahead of the user's tensors (as arrays for NumPy callers)."""
        if leaves and all(isinstance(x, np.ndarray) for x in leaves):
            return [*(to_numpy(t) for t in self.reads), *leaves]
        return [*self.reads, *leaves]

    def write_back(self, outputs: list, leaves: list) -> list:
        """The new state copied into its tensors (all user leaves, as the caller passed them);
        the model's own outputs returned."""
        with torch.no_grad():
            for destination, value in zip(self.writes, outputs, strict=False):
                target = leaves[destination] if isinstance(destination, int) else destination
                if isinstance(target, np.ndarray):
                    np.copyto(target, to_numpy(value))
                else:
                    target.copy_(torch.from_numpy(value) if isinstance(value, np.ndarray) else value)
        return outputs[len(self.writes) :]


def _unsupported(why: str) -> CompileError:
    return CompileError(
        [Diagnostic("error", f"versa.compile: a stateful export that Versa cannot take: {why}")]
    )
