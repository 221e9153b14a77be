"""The layout is the architecture: every module sits in a layer, imports only go down the layers, and no module
imports itself in a circle (docs/architecture.md).

Imports are read from the source (``ast``), wherever they are written: at the top, inside a function, under
``TYPE_CHECKING``, or as ``importlib.import_module`` of a literal or an f-string's literal prefix.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("analysis.base", "analysis.engine", "analysis.systems", "sims", "analysis.fights", "analysis.present",
          "analysis.tools", "analysis.front", "analysis")
"""Bottom to top; ``analysis`` itself is the public facade (its ``__init__``), above everything."""
MAX_LINES = 900


def modules() -> dict[str, Path]:
    """Every module of the two packages by dotted name (a package by its ``__init__``)."""
    out = {}
    for top in ("analysis", "sims"):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


MODULES = modules()


def layer(module: str) -> int:
    """The rank of the layer holding ``module`` (the longest matching layer name)."""
    matches = [i for i, name in enumerate(LAYERS) if module == name or module.startswith(name + ".")]
    if not matches:
        raise KeyError(module)
    return max(matches, key=lambda i: len(LAYERS[i]))


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if MODULES[module].name == "__init__.py" else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _dynamic_targets(call: ast.Call) -> list[str]:
    """The modules ``importlib.import_module("x.y")`` may load: the one named, or for an f-string
    ``f"x.y.{name}"`` every module straight under its literal prefix ``x.y``."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if name != "import_module" or not call.args:
        return []
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return [arg.value]
    if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        prefix = str(arg.values[0].value).rstrip(".")
        return [m for m in MODULES if m.startswith(prefix + ".") and "." not in m[len(prefix) + 1:]]
    return []


def imports(module: str) -> set[str]:
    """The dicelab modules ``module`` imports (a ``from package import submodule`` counts as the submodule)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node)
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        elif isinstance(node, ast.Call):
            targets = _dynamic_targets(node)
        found |= {t for t in targets if t.split(".")[0] in ("analysis", "sims") and t != module}
    return found


GRAPH = {m: imports(m) for m in MODULES}


def test_every_module_sits_in_a_layer_and_every_layer_is_a_folder():
    loose = [m for m in MODULES if m.count(".") == 1 and m.startswith("analysis.") and MODULES[m].name != "__init__.py"]
    assert not loose, f"modules straight under analysis/ belong to no layer (put them in a layer's folder): {loose}"
    for name in LAYERS[:-1]:
        assert name in MODULES, f"layer {name} has no package"
        doc = ast.get_docstring(ast.parse(MODULES[name].read_text(encoding="utf-8")))
        assert doc, f"layer {name} says nothing of what it holds"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_only_go_down_the_layers(module):
    up = sorted(t for t in GRAPH[module] if layer(t) > layer(module))
    assert not up, f"{module} (layer {LAYERS[layer(module)]}) imports from higher layers: {up}"


def test_no_module_imports_itself_in_a_circle():
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH.get(v, ()):
            if w not in MODULES:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                circles.append(sorted(part))

    for v in MODULES:
        if v not in index:
            visit(v)
    assert not circles, f"import circles: {circles}"


def test_the_checker_reads_static_and_dynamic_imports():
    """The checks above could fail: layers are ordered, and a dynamic import reaches every module it may load."""
    assert layer("analysis.engine.markov") < layer("analysis.tools.tune")
    tree = ast.parse("import os\nimportlib.import_module(f'sims.{x}')")
    assert "sims.kurs" in _dynamic_targets(tree.body[1].value)
    assert layer("analysis.front.cli") > layer("analysis.tools.design") > layer("analysis.present.plots")


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_is_over_the_line_limit(module):
    lines = len(MODULES[module].read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{module} has {lines} lines (at most {MAX_LINES}: split it along its seams)"
