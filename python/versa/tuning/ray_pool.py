"""The tuner's workers on a Ray cluster (`versa-tune --ray ADDRESS`; an optional extra).

Ray is an existing distributed engine; this is the local pool's interface (`workers.LocalPool`)
on it, with the two halves of a compile apart:

    lowering actors   anywhere (any node with a CPU): MLIR, the kernel to the llvm dialect,
                      with the steps the coordinator built for the target (its thread count
                      and OpenMP), so any machine lowers as the target's would
    timing actors     on nodes of the target kind only: LLVM's machine code, the output check
                      and the timings; each checks at start that its CPU has the target's
                      fingerprint and the pool refuses to start otherwise (a point measured on
                      another kind of machine is no fact about this one)

The coordinator drives timing actors exactly as local worker processes: a batch's lowerings run
on every lowering actor at once, each result goes straight (as a Ray object) to the timing
actor that loads it, and candidates are then timed one at a time. `address="local"` starts a
Ray instance on this machine for the run and stops it after (the tests; Ray 2.60 has no
in-process local mode any more): the same database as the local pool, through Ray.
"""

from versa.tuning.workers import KernelWorker, WorkerError, reason


class _Lowering(KernelWorker):
    def ping(self) -> bool:
        return True


class _Timing(KernelWorker):
    def __init__(self, steps: list, expected: str):
        super().__init__(steps)
        from versa import targets  # noqa: PLC0415 (on the node: its own CPU)
        from versa.tuning.db import fingerprint  # noqa: PLC0415

        found = fingerprint(targets.host())
        if found != expected:
            raise RuntimeError(f"this node is not of the target's kind: {found}, tuning for {expected}")

    def ping(self) -> bool:
        return True


class RayPool:
    def __init__(self, address: str, steps: list, expected: str, size: int = 0, lowering: int = 0):
        """`size` timing actors (default: one per `threads` CPUs of the cluster) and `lowering`
        lowering actors (default: one per CPU)."""
        import ray  # noqa: PLC0415 (optional extra)

        self.ray, self.owned = ray, not ray.is_initialized()
        if self.owned:
            where = {"num_cpus": max(size, lowering) or None} if address == "local" else {"address": address}
            ray.init(**where, include_dashboard=False, log_to_driver=False, configure_logging=False)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        local = address == "local"  # one machine: the actors share its cores
        timing = ray.remote(num_cpus=0 if local else 1)(_Timing)
        lowerer = ray.remote(num_cpus=0 if local else 1)(_Lowering)
        self.actors = [timing.remote(steps, expected) for _ in range(size or max(1, cpus // 2))]
        self.lowerers = [lowerer.remote(steps) for _ in range(lowering or cpus)]
        try:
            ray.get([a.ping.remote() for a in (*self.actors, *self.lowerers)])
        except ray.exceptions.RayActorError as err:
            self.close()
            raise WorkerError(f"a Ray worker could not start: {err}") from None

    @property
    def size(self) -> int:
        return len(self.actors)

    def call(self, worker: int, method: str, *args):
        ((status, value),) = self.map([(worker, method, args)])
        if status != "ok":
            raise WorkerError(value)
        return value

    def map(self, jobs: list[tuple[int, str, tuple]]) -> list[tuple[str, object]]:
        """Jobs as the local pool takes them; a "compile" is lowered on a lowering actor (round
        robin) and loaded by the job's timing actor from the lowering's Ray object."""
        refs = []
        for i, (worker, method, args) in enumerate(jobs):
            actor = self.actors[worker]
            if method == "compile":
                cid, *rest = args
                lowered = self.lowerers[i % len(self.lowerers)].lower.remote(*rest)
                refs.append(actor.load.remote(cid, lowered))
            else:
                refs.append(getattr(actor, method).remote(*args))
        results = []
        for ref in refs:
            try:
                results.append(("ok", self.ray.get(ref)))
            except self.ray.exceptions.RayTaskError as err:
                results.append(("error", reason(getattr(err, "cause", None) or err)))
        return results

    def close(self) -> None:
        for actor in (*self.actors, *self.lowerers):
            self.ray.kill(actor)
        self.actors, self.lowerers = [], []
        if self.owned:
            self.ray.shutdown()
