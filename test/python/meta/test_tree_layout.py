"""Meta-tests: the source tree keeps the layout `passes/__init__.py` describes.

Every import statement of Versa's own modules (those inside functions too) is read with `ast`:
the folders are phases and targets in pipeline order, a folder's top level holds its passes and
its pipeline, helpers live in subfolders or `common/`, and imports go only down that order.
"""

import ast
from pathlib import Path

import pytest
from versa.passes import PASSES, PIPELINES

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = {
    "python/versa": "versa",
    "passes": "versa.passes",
    "dialects": "versa.dialects",
    "tools": "versa.tools",
}
# The phases of passes/, in pipeline order; the two targets share the last place.
PHASES = {"common": 0, "optimize": 1, "versa_to_linalg": 2, "bufferize": 3, "cpu": 4, "gpu": 4}


def _modules() -> dict[str, Path]:
    found = {}
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


MODULES = _modules()


def _imports(name: str) -> set[str]:
    """The Versa modules `name` imports (a `from package import module` names the module)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name in MODULES}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            source = ".".join([*base, *([node.module] if node.module else [])])
            for alias in node.names:
                if f"{source}.{alias.name}" in MODULES:
                    found.add(f"{source}.{alias.name}")
                elif source in MODULES:
                    found.add(source)
    return found - {name}


IMPORTS = {name: _imports(name) for name in MODULES}
PASS_MODULES = {cls.__module__ for cls in (*PASSES.values(), *PIPELINES.values())}


def _place(name: str) -> tuple[str, list[str]] | None:
    """(phase, folders below it) of a module of passes/, or None for the registry and others."""
    parts = name.split(".")
    if parts[:2] != ["versa", "passes"] or len(parts) < 3:
        return None
    return parts[2], parts[3:-1] if MODULES[name].name != "__init__.py" else parts[3:]


PASS_TREE = sorted(n for n in MODULES if _place(n) is not None)


@pytest.mark.parametrize("name", PASS_TREE)
def test_a_folders_top_level_holds_its_passes_and_pipeline(name):
    phase, below = _place(name)
    assert phase in PHASES, f"{name}: passes/{phase}/ is not a phase ({', '.join(PHASES)})"
    top_level = not below and MODULES[name].name != "__init__.py"
    is_pass = name in PASS_MODULES
    if phase == "common" or not top_level:
        assert not is_pass, f"{name} holds a pass: passes live at a phase folder's top level"
    else:
        assert is_pass or name.endswith(".pipeline"), (
            f"{name} is no pass: helpers go in a subfolder or common/"
        )


@pytest.mark.parametrize("name", PASS_TREE)
def test_imports_go_down_the_phases_never_across_targets(name):
    phase, _ = _place(name)
    for target in IMPORTS[name]:
        place = _place(target)
        assert place is not None or not target.startswith("versa.passes"), f"{name} imports the registry"
        if place is None:
            continue
        other = place[0]
        assert PHASES[other] <= PHASES[phase], f"{name} imports {target}, of a later phase"
        assert PHASES[other] < 4 or other == phase, f"{name} imports {target}: {phase} ↛ {other}"


@pytest.mark.parametrize("name", PASS_TREE)
def test_helpers_import_no_pass_module_and_nothing_above_them(name):
    phase, below = _place(name)
    if name.endswith(".pipeline"):
        return  # a pipeline builds on passes
    for target in IMPORTS[name]:
        assert target not in PASS_MODULES, f"{name} imports the pass module {target} (for a helper?)"
        place = _place(target)
        if place and place[0] == phase:
            folder = place[1]
            above = len(folder) < len(below) and below[: len(folder)] == folder
            assert not above, f"{name} imports {target}, in a folder above its own"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith(("versa.cpu", "versa.gpu"))))
def test_the_runtimes_do_not_import_each_other(name):
    mine, other = ("versa.cpu", "versa.gpu") if name.startswith("versa.cpu") else ("versa.gpu", "versa.cpu")
    assert not any(t == other or t.startswith(other + ".") for t in IMPORTS[name]), f"{name} imports {other}"


def test_no_import_cycles():
    """Import cycles, lazy imports inside functions included, in Versa's own modules."""
    state: dict[str, int] = {}
    cycles = []

    def visit(name: str, stack: list[str]) -> None:
        state[name] = 1
        for target in sorted(IMPORTS[name]):
            if state.get(target) == 1 and not _package_of(target, name):
                cycles.append(" → ".join([*stack[stack.index(target) :], target]))
            elif target not in state:
                visit(target, [*stack, target])
        state[name] = 2

    for name in sorted(MODULES):
        if name not in state:
            visit(name, [name])
    assert not cycles, "\n".join(cycles)


def _package_of(package: str, module: str) -> bool:
    """`package`'s __init__ imports its own submodules: not a cycle among peers."""
    return module.startswith(package + ".")
