"""One compile's options, decided once where a compile starts and passed down as objects.

`versa.compile`, the torch.compile backend and the tools each build one `CompileOptions`: the
target is resolved (`versa.targets.resolve`, the one resolver), the thread count and precision
are settled (the environment is read in `versa.environment`, here, never inside a pass), and
`passes()` gives the pipeline as pass objects that hold the `Target` itself. Nothing is turned
into pipeline text to be parsed and looked up again.

Two optimisation levels exist and are kept apart: `opt_level` is Versa's tier (lower-to-llvm's
`opt-level`: plain loops, vector code, codegen strategies, threads); LLVM's own -O, which the
JIT's code generator runs at, is `llvm_opt_level` (`versa.cpu.runtime.JitFunction`).
"""

from dataclasses import dataclass

from versa import environment, targets
from versa.diagnostics import CompileError, Diagnostic
from versa.passes import Pass
from versa.passes.common.base import PassError
from versa.passes.cpu.pipeline import LowerToLLVM
from versa.passes.optimize.pipeline import VersaOptimize

OPT_LEVELS = (0, 1, 2, 3)
MATMUL_PRECISIONS = ("highest", "high")  # f32 matmuls: f32 FMA, or TF32 tensor cores (GPUs)


@dataclass(frozen=True)
class CompileOptions:
    target: targets.Target  # what the code runs on: the host CPU, an ISA level it runs, a GPU
    opt_level: int = 3  # Versa's tier, 0-3 (lower-to-llvm's opt-level); not LLVM's -O
    threads: int = 0  # threads of -O3 CPU code; `create` fills in VERSA_NUM_THREADS or every core
    matmul_precision: str = "highest"  # "high": f32 matmuls may use TF32 tensor cores (GPUs)
    standalone: bool = False  # code for a library that may link only libc/libm: serial
    tuning_db: str = ""  # the tuning database codegen reads (versa-tune); "" = none

    @classmethod
    def create(
        cls,
        target: "str | targets.Target | None" = None,
        *,
        opt_level: int = 3,
        threads: int = 0,
        matmul_precision: str = "highest",
        standalone: bool = False,
        runnable: bool = False,
        tuning_db: str | None = None,
    ) -> "CompileOptions":
        """The options of a compile for `target` (None: the host CPU). With `runnable`, a CPU
        target must be one this CPU runs (the JIT). `tuning_db` None: VERSA_TUNING_DB's. Raises
        TargetError or ValueError."""
        resolved = targets.resolve(target or "host")
        if runnable and resolved.kind == "cpu" and not resolved.is_host:
            name = target.name if isinstance(target, targets.Target) else target
            raise targets.TargetError(f"this CPU ({targets.host().isa}) cannot run {name} code")
        if opt_level not in OPT_LEVELS:
            raise ValueError(f"opt level {opt_level} is not one of 0, 1, 2, 3")
        if matmul_precision not in MATMUL_PRECISIONS:
            raise ValueError(f"matmul precision must be highest or high, not {matmul_precision!r}")
        database = environment.tuning_db() if tuning_db is None else str(tuning_db)
        threads = threads or targets.default_threads()
        return cls(resolved, opt_level, threads, matmul_precision, standalone, database)

    @property
    def on_cpu(self) -> bool:
        return self.target.kind == "cpu"

    def versa_passes(self) -> list[Pass | str]:
        """The versa-level optimisations for the target (`versa-optimize`)."""
        return list(VersaOptimize(target=self.target).steps())

    def lowering(self, profile: bool = False) -> list[Pass | str]:
        """versa → the llvm dialect for the CPU target (`lower-to-llvm`); GPUs: `versa.gpu`.
        `profile`: with a clock mark after each kernel (the optimizer's per-layer profile)."""
        lower = LowerToLLVM(
            target=self.target,
            opt_level=self.opt_level,
            threads=self.threads,
            standalone=self.standalone,
            tuning_db=self.tuning_db,
            profile=profile,
        )
        try:
            return list(lower.steps())
        except PassError as err:
            raise CompileError([Diagnostic("error", str(err))]) from None

    def passes(self) -> list[Pass | str]:
        """The whole CPU pipeline: versa-optimize, then lower-to-llvm."""
        return [*self.versa_passes(), *self.lowering()]
