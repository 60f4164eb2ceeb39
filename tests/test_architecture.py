"""The package layout is the architecture: no import cycles, and layers import only downwards.

The graph has every `import` in src/wikic (module level and inside functions; `TYPE_CHECKING`
blocks excluded), each resolved to the most specific wikic module it names.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, modules: set[str]) -> set[str]:
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "wikic")
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and node.module.split(".")[0] == "wikic"
        ):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in SRC.joinpath("wikic").rglob("*.py")}
    modules = set(files)
    return {
        name: {m for m in _imports(ast.parse(path.read_text("utf-8")), modules) if m != name}
        for name, path in files.items()
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_no_import_cycles() -> None:
    assert _cycles(import_graph()) == []


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# layer → packages it must never import
FORBIDDEN = {
    "wikic.vault": ("wikic.operation", "wikic.store", "wikic.ingest", "wikic.query",
                    "wikic.lint", "wikic.llm", "wikic.cli"),
    "wikic.operation": ("wikic.store", "wikic.ingest", "wikic.query", "wikic.lint", "wikic.llm",
                        "wikic.cli"),
    "wikic.store": ("wikic.operation", "wikic.ingest", "wikic.query", "wikic.lint", "wikic.cli"),
    "wikic.llm": ("wikic.vault", "wikic.operation", "wikic.store", "wikic.ingest", "wikic.query",
                  "wikic.lint", "wikic.cli"),
    "wikic.lint": ("wikic.ingest", "wikic.query", "wikic.cli"),
    "wikic.query": ("wikic.ingest", "wikic.lint", "wikic.cli"),
    "wikic.ingest": ("wikic.query", "wikic.lint", "wikic.cli"),
}  # fmt: skip


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_only_downwards(layer: str) -> None:
    graph = import_graph()
    bad = sorted(
        f"{mod} imports {dep}"
        for mod, deps in graph.items()
        if mod == layer or mod.startswith(layer + ".")
        for dep in deps
        if any(dep == f or dep.startswith(f + ".") for f in FORBIDDEN[layer])
    )
    assert bad == []


def test_prompts_import_nothing_of_wikic_outside_them() -> None:
    """`wikic.prompts` is the lowest layer: any layer may import it (vault's prose checks read
    its sentences), and it imports only the standard library and itself."""
    graph = import_graph()
    bad = sorted(
        f"{mod} imports {dep}"
        for mod, deps in graph.items()
        if mod == "wikic.prompts" or mod.startswith("wikic.prompts.")
        for dep in deps
        if dep != "wikic.prompts" and not dep.startswith("wikic.prompts.")
    )
    assert any(m.startswith("wikic.prompts.") for m in graph)  # the package was scanned
    assert bad == []


def test_core_never_imports_the_cli() -> None:
    graph = import_graph()
    bad = sorted(
        f"{mod} imports {dep}"
        for mod, deps in graph.items()
        if not mod.startswith(("wikic.cli", "wikic.mcp")) and mod != "wikic.__main__"
        for dep in deps
        if dep.startswith("wikic.cli")
    )
    assert bad == []
