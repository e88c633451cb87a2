"""The tuner's workers on a Ray cluster (`versa-tune --ray ADDRESS`; an optional extra).

Ray is an existing distributed engine: its actors are the `KernelWorker`s of the local pool,
one per CPU the cluster offers (or `jobs`), each compiling candidates and holding their machine
code, so the coordinator drives them exactly as it drives local processes (`workers.LocalPool`:
compile batches on all actors at once, time one candidate at a time). Timing needs nodes of the
target kind: every actor checks, when it starts, that the CPU it runs on has the fingerprint
of the target being tuned, and the pool refuses to start otherwise (a point measured on another
kind of machine is not a fact about this one). `address="local"` starts a Ray instance on this
machine for the run (the tests; Ray 2.60 has no in-process local mode any more) and stops it
after: the same work as the local pool, through Ray.
"""

from versa.tuning.workers import KernelWorker, WorkerError


class _Actor(KernelWorker):
    def __init__(self, target_name: str, threads: int, expected: str):
        super().__init__(target_name, threads)
        from versa import targets  # noqa: PLC0415 (on the node: its own CPU)
        from versa.tuning.db import fingerprint  # noqa: PLC0415

        found = fingerprint(targets.resolve(target_name))
        if found != expected:
            raise RuntimeError(f"this node is not the target's kind: {found} (tuning for {expected})")

    def ping(self) -> bool:
        return True


class RayPool:
    def __init__(self, address: str, target_name: str, threads: int, expected: str, size: int = 0):
        import ray  # noqa: PLC0415 (optional extra)

        self.ray, self.owned = ray, not ray.is_initialized()
        if self.owned:
            where = {"num_cpus": size or None} if address == "local" else {"address": address}
            ray.init(**where, include_dashboard=False, log_to_driver=False, configure_logging=False)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        size = size or max(1, cpus // max(1, threads))
        remote = ray.remote(num_cpus=0 if address == "local" else threads)(_Actor)  # local: all share
        self.actors = [remote.remote(target_name, threads, expected) for _ in range(size)]
        try:
            ray.get([a.ping.remote() for a in self.actors])
        except ray.exceptions.RayActorError as err:
            raise WorkerError(f"a Ray worker could not start: {err}") from None

    @property
    def size(self) -> int:
        return len(self.actors)

    def call(self, worker: int, method: str, *args):
        try:
            return self.ray.get(getattr(self.actors[worker], method).remote(*args))
        except self.ray.exceptions.RayTaskError as err:
            cause = err.cause if getattr(err, "cause", None) is not None else err
            raise WorkerError(
                f"{type(cause).__name__}: {str(cause).splitlines()[0] if str(cause) else ''}"
            ) from None

    def map(self, jobs: list[tuple[int, str, tuple]]) -> list[tuple[str, object]]:
        refs = [getattr(self.actors[w], m).remote(*args) for w, m, args in jobs]
        results = []
        for ref in refs:
            try:
                results.append(("ok", self.ray.get(ref)))
            except self.ray.exceptions.RayTaskError as err:
                cause = err.cause if getattr(err, "cause", None) is not None else err
                results.append(
                    ("error", f"{type(cause).__name__}: {str(cause).splitlines()[0] if str(cause) else ''}")
                )
        return results

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)
        self.actors = []
        if self.owned:
            self.ray.shutdown()
