"""Crash reproducers, as mlir-opt writes them: when a pass fails on IR the verifier accepted
(a bug, not a refusal of the input), `versa-opt` saves the IR before the failing pass and that
pass, and `versa-opt --run-reproducer FILE` replays them.

A reproducer is a `.mlir` file: the IR, then mlir-opt's resource block naming the pipeline
(Versa passes included, so only versa-opt can replay it):

    func.func @f(...) { ... }
    {-#
      external_resources: {
        mlir_reproducer: {
          pipeline: "builtin.module(versa-fuse)",
          verify_each: true
        }
      }
    #-}

Files get fresh names (`versa-reproducer-*.mlir`) in the chosen directory, by default the
system's temporary one: a reproducer never overwrites a file.
"""

import dataclasses
import json
import os
import re
import tempfile
from collections.abc import Sequence

from versa import compiler, targets
from versa.diagnostics import CompileError, Diagnostic
from versa.mlir import ir
from versa.passes.common.base import Pass

_BLOCK = """
{{-#
  external_resources: {{
    mlir_reproducer: {{
      pipeline: {pipeline},
      verify_each: true
    }}
  }}
#-}}
"""
_PIPELINE = re.compile(r'mlir_reproducer:\s*\{[^}]*?pipeline:\s*("(?:[^"\\]|\\.)*")', re.DOTALL)


def element_text(element: compiler.Element) -> str:
    """A pipeline element as text that `compiler.parse_pipeline` reads back."""
    if not isinstance(element, Pass):
        return element
    options = []
    for field in dataclasses.fields(element):
        value = getattr(element, field.name)
        if isinstance(value, targets.Target):
            text = value.name  # a target option: the name `targets.resolve` reads back
        else:
            text = str(value).lower() if isinstance(value, bool) else str(value)
        options.append(f"{field.name.replace('_', '-')}={text}")
    return element.name + ("{" + " ".join(options) + "}" if options else "")


def pipeline_text(elements: Sequence[compiler.Element]) -> str:
    return "builtin.module(" + ",".join(element_text(e) for e in elements) + ")"


def localize(before: ir.Operation, elements: Sequence[compiler.Element]) -> tuple[str, list]:
    """The IR before the first element that fails on its own, and that element. When none
    fails alone (the failure needs the whole pipeline), the input and the whole pipeline."""
    module = before.clone()
    for element in elements:
        text = str(module)
        try:
            compiler.build_pass_manager([element], module.context).run(module)
        except (ir.MLIRError, CompileError):
            return text, [element]
    return str(before), list(elements)


def write(directory: str | None, failure: compiler.PassFailure, elements: Sequence[compiler.Element]) -> str:
    """Save a reproducer of `failure` in `directory` (None: the temporary directory); its path."""
    text, failing = localize(failure.before, elements) if failure.before is not None else ("", elements)
    directory = directory or tempfile.gettempdir()
    os.makedirs(directory, exist_ok=True)
    fd, path = tempfile.mkstemp(prefix="versa-reproducer-", suffix=".mlir", dir=directory)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text.rstrip("\n") + "\n" + _BLOCK.format(pipeline=json.dumps(pipeline_text(failing))))
    return path


def read_pipeline(text: str) -> str:
    """The pipeline of a reproducer's text (the IR is the text itself: MLIR skips the block)."""
    match = _PIPELINE.search(text)
    if match is None:
        raise CompileError(
            [Diagnostic("error", "not a reproducer: no 'mlir_reproducer' resource with a pipeline")]
        )
    return json.loads(match.group(1))


def note(path: str) -> Diagnostic:
    return Diagnostic(
        "note", f"reproducer written to {path}; replay it with: versa-opt --run-reproducer {path}"
    )
