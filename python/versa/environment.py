"""The environment variables Versa reads, read here and nowhere else.

Each is a default for an option a caller can also pass (`versa.options.CompileOptions`), so a
run is reproduced from its options alone: a pass never reads the environment.

    VERSA_HOST_TARGET=x86-64-v3   `host` is that ISA level (this CPU must run it): the tool
                                  chain and the suite as an AVX2 host sees them (versa.targets)
    VERSA_NUM_THREADS=N           threads of -O3 code where the options say 0 (every core)
    VERSA_CODEGEN_STRICT=1        a codegen strategy whose script fails raises (tests)
    VERSA_TUNING_DB=PATH          the tuning database lower-to-llvm reads (versa.tuning.db)
"""

import os

HOST_TARGET = "VERSA_HOST_TARGET"
NUM_THREADS = "VERSA_NUM_THREADS"
CODEGEN_STRICT = "VERSA_CODEGEN_STRICT"
TUNING_DB = "VERSA_TUNING_DB"


def host_target() -> str:
    """The ISA level `host` is pinned to, or "" for the detected CPU."""
    return os.environ.get(HOST_TARGET, "").strip()


def num_threads() -> int:
    """VERSA_NUM_THREADS when it is a positive count, else 0."""
    text = os.environ.get(NUM_THREADS, "").strip()
    return int(text) if text.isdigit() and int(text) > 0 else 0


def codegen_strict() -> bool:
    return bool(os.environ.get(CODEGEN_STRICT))


def tuning_db() -> str:
    """The tuning database's path, or "" for none."""
    return os.environ.get(TUNING_DB, "").strip()
