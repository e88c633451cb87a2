"""lit configuration: tools (versa-opt, versa-run) and FileCheck (the pip `filecheck` port) come
from the virtual environment whose Python runs lit."""

import os
import sys

import lit.formats

config.name = "Versa"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "python", "Inputs"]

venv_bin = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([venv_bin, os.environ.get("PATH", "")])
config.substitutions.append(("FileCheck", "filecheck"))
# `VERSA_HOST_TARGET=x86-64-v3 lit test` runs the suite as an AVX2 host would (versa.targets).
if "VERSA_HOST_TARGET" in os.environ:
    config.environment["VERSA_HOST_TARGET"] = os.environ["VERSA_HOST_TARGET"]
# Every run compiles (the tests check compiles) and writes nothing into the user's cache.
config.environment["VERSA_CACHE_DIR"] = "off"

# An upstream mlir-opt (the one the torch-mlir wheel ships), to show the exported IRDL loads
# outside Versa.
config.substitutions.append(("%upstream-opt", "torch-mlir-opt"))
config.substitutions.append(
    ("%versa_irdl", os.path.join(os.path.dirname(__file__), "..", "dialects", "versa.irdl.mlir"))
)
