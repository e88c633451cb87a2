"""versa-codegen: tile, vectorize and parallelise contractions with their strategies.

Every linalg op that a strategy accepts (`codegen.select`) is tagged, its strategy writes the
transform sequence for it, and each op's kernel is outlined into a function of its own
(`kernels.py`: what the script's function-wide patterns see is one kernel, not the model);
kernels equal up to their constant weights share one function (`sharing.py`: a model's
identical layers are tiled and compiled once, each layer a call); the interpreter runs each
kernel's sequence on its function, and those of the ops left in place as one script on the
module. Where a tuning database (`tuning-db`, versa-tune) holds a measured point for an op's
signature, its strategy is rebuilt at that point. A sequence that fails to apply (a strategy
that accepted an op its transforms cannot take: Wav2Vec2's packed positional conv once) fails
nothing: its payload is put back from a copy taken before (a kernel's function: small; the
module once for the ops in place) and the op is left untransformed (`strict=1`, by default where
VERSA_CODEGEN_STRICT is set, raises instead, for tests of the strategies). Runs on tensors,
before bufferization (hoisting accumulators only works there). What no strategy takes, or a failed
one leaves, is left for `versa-vectorize` and the loop lowering.

    linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, ...)
  → scf.forall { scf.for ... { vector.fma ... : vector<32xf32> } }
"""

from dataclasses import dataclass, field

from versa import environment, log, targets
from versa.mlir import ir

from ..common import remarks
from ..common.base import Pass, target_option
from ..common.reductions import has_reduction_loop
from .strategies import has_points, kernels, load_database, select, tuned
from .strategies.declines import declined
from .strategies.script import Script, apply_script, untag

_TAG = "versa.codegen"
_log = log.get("codegen")


@dataclass(frozen=True)
class VersaCodegen(Pass):
    name = "versa-codegen"
    summary = "Tile and vectorize contractions per op-family strategy (transform dialect)"
    threads: int = 0  # 0 = VERSA_NUM_THREADS or the available cores
    target: targets.Target = target_option()  # tile sizes come from it
    print_script: bool = False
    # A script that fails to apply fails the pass (tests of the strategies); VERSA_CODEGEN_STRICT
    # sets the default, so that a test run sees every strategy whose script fails.
    strict: bool = field(default_factory=environment.codegen_strict)
    # Measured points (versa-tune) replace the analytic choice of the ops they were measured for.
    tuning_db: str = field(default_factory=environment.tuning_db)

    def run(self, module: ir.Operation) -> None:
        target, threads = self.target, self.threads or targets.default_threads()
        tagged: list[tuple[ir.Operation, bool]] = []
        scripts: dict[str, Script] = {}
        where: dict[str, ir.Location] = {}  # each tagged op's location: its remarks go there
        db = load_database(self.name, self.tuning_db)
        listening = remarks.enabled()

        def visit(op: ir.Operation) -> ir.WalkResult:
            strategy = select(op, target, threads) if op.name.startswith("linalg.") else None
            if strategy is not None and db is not None:
                strategy = self._tuned(op, strategy, db, threads)
            if listening:
                self._remark(op, strategy, threads)
            if strategy is not None:
                _log.debug("%s at %s: %s", op.name, op.location, strategy)
                key = f"op{len(tagged)}"
                op.attributes[_TAG] = ir.StringAttr.get(key)
                where[key] = op.location
                tagged.append((op, strategy.fuses_producers()))
                script = scripts[key] = Script()
                strategy.emit(script, script.match_tag(_TAG, key), (_TAG, key))
            return ir.WalkResult.ADVANCE

        module.walk(visit)
        if not tagged:
            return
        if self.print_script:
            for script in scripts.values():
                print(script.text())
        outlined = kernels.outline(tagged)
        outlined = kernels.share(outlined, scripts, _TAG)  # one function per structure (layers)
        for kernel in outlined:  # each kernel's script on its function alone, a copy at hand
            for key in kernel.tags(_TAG):
                self._apply(kernel.function, scripts.pop(key), kernel.restore, where[key])
        if scripts:  # ops left in place: one script, and one by one only if that one fails

            def restore(module: ir.Operation, copy: ir.Operation) -> ir.Operation:
                _restore_module(module, copy)
                for kernel in outlined:
                    kernel.rebind(module)
                return module

            retry = [(where[key], script) for key, script in scripts.items()]
            self._apply(module, _joined(scripts.values()), restore, None, retry)
        untag(module, _TAG)
        for kernel in outlined:
            kernel.close()  # inlined back, or a shared function whose calls stay

    def _tuned(self, op: ir.Operation, strategy, db, threads: int):
        """`strategy` at the database's point for `op`, if it holds one this strategy takes."""
        chosen, note = tuned(op, strategy, self.target, db, threads)
        if note and self.print_script:
            print(f"// versa-codegen: {note}")
        return chosen

    def _apply(self, payload: ir.Operation, script: Script, restore, location, retry=()) -> None:
        """Run `script` on `payload`. Where it fails (a strategy's transform does not apply to
        an op it accepted), `payload` is put back as it was (`restore(payload, copy)`) and its
        ops are left to the later passes (`versa-vectorize`, plain loops): a valid op never
        fails the module; a remark at `location` (its op's) says so. With `retry` (location,
        script) pairs, the scripts `script` joins are then tried one by one. The copy is taken
        per kernel (small) or once for the ops left in the module."""
        payload = payload.operation
        copy = payload.clone(ip=False)
        try:
            apply_script(payload, script.text())
        except (ValueError, ir.MLIRError) as err:
            if self.strict:
                raise
            payload = restore(payload, copy)
            first = str(err).splitlines()[0] if str(err) else type(err).__name__
            if self.print_script:
                print(f"// versa-codegen: left untransformed: {first}")
            if location is not None:
                reason = "the strategy's transform script failed: the op is left untransformed (plain loops)"
                remarks.missed(self.name, "fallback", location, reason, error=first[:200])
            for each_location, each in retry:
                self._apply(payload, each, restore, each_location)
            return
        copy.erase()

    def _remark(self, op: ir.Operation, strategy, threads: int) -> None:
        """The remarks of one op: its strategy (applied) and what that declined, or why a
        contraction, convolution, pooling or reduction got none (missed)."""
        if strategy is not None:
            remarks.applied(
                self.name, "strategy", op.location, f"tiled by {type(strategy).__name__}", op=op.name
            )
            for category, reason, values in declined(strategy, op, self.target, threads):
                remarks.missed(self.name, category, op.location, reason, op=op.name, **values)
        elif has_reduction_loop(op):
            static = all(
                isinstance(v.type, ir.RankedTensorType) and v.type.has_static_shape
                for v in (*op.operands, *op.results)
            )
            if static and not has_points(op):
                return  # an empty iteration space: its loops never run
            reason = "no strategy takes its shape, element type or form" if static else "a dynamic shape"
            operands = ", ".join(str(v.type) for v in op.operands)
            reason = f"no codegen strategy ({reason}): it becomes plain loops"
            remarks.missed(self.name, "fallback", op.location, reason, op=op.name, operands=operands)


def _joined(scripts) -> Script:
    """One script running `scripts`' sequences one after another (fresh handle names each)."""
    joined = Script()
    for script in scripts:
        joined.lines += [line.replace("%h", f"%s{len(joined.lines)}h") for line in script.lines]
    return joined


def _restore_module(module: ir.Operation, copy: ir.Operation) -> ir.Operation:
    """`module`'s body replaced by that of `copy` (the module op itself cannot be swapped)."""
    block = module.regions[0].blocks[0]
    for op in list(block.operations):
        op.operation.erase()
    for op in list(copy.regions[0].blocks[0].operations):
        block.append(op.operation)
    copy.erase()
    return module
