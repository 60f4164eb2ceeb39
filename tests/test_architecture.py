"""The package layout is the architecture: no import cycles, and layers import only downwards;
every package of src/wikic has a rule.

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


# layer → packages it must never import; every package of src/wikic has an entry
_VERBS = ("wikic.ingest", "wikic.query", "wikic.lint", "wikic.consolidate", "wikic.maintain")
_TOP = ("wikic.cli", "wikic.mcp")
FORBIDDEN = {
    "wikic.prompts": ("wikic.language", "wikic.vault", "wikic.operation", "wikic.store",
                      "wikic.llm", *_VERBS, *_TOP),
    "wikic.language": ("wikic.operation", "wikic.store", "wikic.llm", *_VERBS, *_TOP),
    "wikic.vault": ("wikic.operation", "wikic.store", "wikic.llm", *_VERBS, *_TOP),
    "wikic.operation": ("wikic.store", "wikic.llm", *_VERBS, *_TOP),
    "wikic.store": ("wikic.operation", *_VERBS, *_TOP),
    "wikic.embed": ("wikic.language", "wikic.vault", "wikic.operation", "wikic.store", "wikic.llm",
                    *_VERBS, *_TOP),
    "wikic.llm": ("wikic.language", "wikic.vault", "wikic.operation", "wikic.store", *_VERBS,
                  *_TOP),
    "wikic.lint": ("wikic.ingest", "wikic.query", "wikic.consolidate", "wikic.maintain", *_TOP),
    "wikic.query": ("wikic.ingest", "wikic.lint", "wikic.consolidate", "wikic.maintain", *_TOP),
    "wikic.ingest": ("wikic.query", "wikic.lint", "wikic.consolidate", "wikic.maintain", *_TOP),
    "wikic.consolidate": ("wikic.ingest", "wikic.query", "wikic.lint", "wikic.maintain", *_TOP),
    "wikic.maintain": ("wikic.ingest", "wikic.query", "wikic.lint", "wikic.consolidate",
                       "wikic.llm", *_TOP),
    "wikic.sync": ("wikic.ingest", "wikic.query", "wikic.lint", "wikic.consolidate", "wikic.llm",
                   *_TOP),
    # runs the verbs as files arrive: above them, below the CLI
    "wikic.watch": ("wikic.sync", *_TOP),
    "wikic.mcp": ("wikic.cli",),
    "wikic.cli": (),  # the top layer: it may import any package
}  # fmt: skip
# layers that import nothing of wikic but these (and their own modules)
ONLY = {
    # English rules: value types of the document and the name rule, nothing that does work
    "wikic.language": (
        "wikic.errors",
        "wikic.config",
        "wikic.vault.document",
        "wikic.vault.names",
        "wikic.vault.name_keys",
        "wikic.prompts",
    ),
    # prompt text only: the lowest layer, which every other may read
    "wikic.prompts": (),
}


def _packages() -> list[str]:
    root = SRC / "wikic"
    return sorted(f"wikic.{p.parent.name}" for p in root.glob("*/__init__.py"))


def test_every_package_has_a_layer_rule() -> None:
    assert [p for p in _packages() if p not in FORBIDDEN] == []


def test_package_finder_finds_the_packages() -> None:
    assert {"wikic.vault", "wikic.language", "wikic.cli"} <= set(_packages())


@pytest.mark.parametrize("layer", sorted(ONLY))
def test_layer_imports_only_what_it_may(layer: str) -> None:
    graph = import_graph()
    bad = sorted(
        f"{mod} imports {dep}"
        for mod, deps in graph.items()
        if mod == layer or mod.startswith(layer + ".")
        for dep in deps
        if not (dep == layer or dep.startswith(layer + "."))
        and not any(dep == a or dep.startswith(a + ".") for a in ONLY[layer])
    )
    assert bad == []


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
