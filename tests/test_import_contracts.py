"""The layers of mipview, checked on the static import graph (in the spirit of napari's
import-linter contracts).

The graph comes from the AST of every module: module-level imports (``if TYPE_CHECKING:`` blocks
included) and imports inside functions ("lazy": they run when the function is called). ``from
mipview import x`` is an edge to ``mipview.x`` when ``x`` is a module, else to ``mipview``;
relative imports are resolved. As in import-linter, importing ``a.b.c`` is an edge to ``a.b.c``
only, not to the packages ``a`` and ``a.b`` that Python runs first (else every package that
imports its own submodules would be a cycle), and ``importlib`` calls are not seen (the
strategy registry loads its modules that way).

The contract:

- **core** (``mipview`` and ``mipview.gpu`` modules other than the CLI and the UI) imports no
  PySide6, pyqtgraph or shiboken6, no ``mipview.ui`` and no CLI module;
- **ui** (``mipview.ui``) imports no CLI module (``mipview.cli``, ``mipview.cli_*``,
  ``mipview.__main__``): what it shares with the CLI lives in the core;
- **CLI** is the top layer: it may import the core, and ``mipview.ui.app`` only, only inside a
  function (``cmd_gui``), so ``mipview run`` and ``bench`` never load Qt; it imports no Qt module
  itself;
- no import cycles among mipview's modules, lazy imports included.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
QT = ("PySide6", "pyqtgraph", "shiboken6")


@dataclass(frozen=True)
class Import:
    target: str
    #: inside a function body: runs when the function is called, not at import
    lazy: bool
    line: int


def module_names(package_dir: Path) -> dict[str, Path]:
    """Dotted name -> file for every module of the package in ``package_dir``."""
    base = package_dir.parent
    out = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(base).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


class _Collector(ast.NodeVisitor):
    def __init__(self, name: str, is_package: bool, modules: Iterable[str]) -> None:
        self.package = name if is_package else name.rpartition(".")[0]
        self.modules = set(modules)
        self.depth = 0
        self.found: list[Import] = []

    def _function(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def _add(self, target: str, node: ast.stmt) -> None:
        self.found.append(Import(target, self.depth > 0, node.lineno))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            parts = self.package.split(".")
            parts = parts[:len(parts) - (node.level - 1)]
            base = ".".join(parts + ([node.module] if node.module else []))
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            self._add(sub if sub in self.modules else base, node)


def import_graph(package_dir: Path) -> dict[str, list[Import]]:
    """Module -> the imports in its source (every module of the package is a key)."""
    modules = module_names(package_dir)
    graph = {}
    for name, path in modules.items():
        collector = _Collector(name, path.name == "__init__.py", modules)
        collector.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        graph[name] = collector.found
    return graph


def find_cycles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """One shortest cycle per strongly connected component, as a chain ``[a, b, ..., a]``.
    Targets that are not keys (other packages) are ignored."""
    nodes = sorted(edges)
    succ = {n: sorted({t for t in edges[n] if t in edges}) for n in nodes}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(v: str) -> None:  # Tarjan; mipview's graph is far shallower than the limit
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in succ[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in succ[v]:
                components.append(sorted(comp))

    for n in nodes:
        if n not in index:
            connect(n)
    return [_shortest_cycle(comp[0], set(comp), succ) for comp in components]


def _shortest_cycle(start: str, members: set[str], succ: Mapping[str, list[str]]) -> list[str]:
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in succ[v]:
                if w not in members:
                    continue
                if w == start:
                    chain = [v]
                    while chain[-1] != start:
                        chain.append(came_from[chain[-1]])
                    return [start, *reversed(chain[:-1]), start]
                if w not in came_from:
                    came_from[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"{start} is in a component but on no cycle")


def describe_cycle(chain: list[str], graph: Mapping[str, list[Import]] | None = None) -> str:
    """``a -> b (line 12, lazy) -> a (line 3)``: where each hop is, when the graph is given."""
    out = chain[0]
    for a, b in zip(chain, chain[1:], strict=False):
        hop = next((i for i in (graph or {}).get(a, []) if i.target == b), None)
        where = "" if hop is None else f" (line {hop.line}{', lazy' if hop.lazy else ''})"
        out += f" -> {b}{where}"
    return out


# --- the contract --------------------------------------------------------------------------------
def is_cli(m: str) -> bool:
    return m in ("mipview.cli", "mipview.__main__") or m.startswith("mipview.cli_")


def is_ui(m: str) -> bool:
    return m == "mipview.ui" or m.startswith("mipview.ui.")


def is_core(m: str) -> bool:
    return (m == "mipview" or m.startswith("mipview.")) and not is_cli(m) and not is_ui(m)


def is_qt(m: str) -> bool:
    return m.split(".")[0] in QT


@dataclass(frozen=True)
class Contract:
    """Modules matching ``source`` must not import what ``forbidden(import)`` is true of."""

    name: str
    source: Callable[[str], bool]
    forbidden: Callable[[Import], bool]


CONTRACTS = (
    Contract("the core imports no Qt, no UI and no CLI module", is_core,
             lambda i: is_qt(i.target) or is_ui(i.target) or is_cli(i.target)),
    Contract("the UI imports no CLI module", is_ui, lambda i: is_cli(i.target)),
    Contract("the CLI imports the UI only as mipview.ui.app, inside a function, and no Qt",
             is_cli, lambda i: is_qt(i.target)
             or (is_ui(i.target) and (i.target != "mipview.ui.app" or not i.lazy))),
)


def violations(graph: Mapping[str, list[Import]],
               contracts: Iterable[Contract] = CONTRACTS) -> list[str]:
    return [f"{m} line {i.line} imports {i.target}{' (lazy)' if i.lazy else ''}: broken "
            f"contract '{c.name}'"
            for c in contracts for m, imports in sorted(graph.items()) if c.source(m)
            for i in imports if c.forbidden(i)]


def mipview_edges(graph: Mapping[str, list[Import]]) -> dict[str, list[str]]:
    return {m: [i.target for i in imports] for m, imports in graph.items()}


@pytest.fixture(scope="module")
def graph() -> dict[str, list[Import]]:
    return import_graph(ROOT / "mipview")


# --- mipview keeps the contract ------------------------------------------------------------------
def test_mipview_keeps_the_layer_contracts(graph):
    broken = violations(graph)
    assert not broken, "\n".join(broken)


def test_mipview_has_no_import_cycles(graph):
    cycles = find_cycles(mipview_edges(graph))
    assert not cycles, "import cycles:\n" + "\n".join(describe_cycle(c, graph) for c in cycles)


def test_the_graph_sees_the_imports_the_contracts_are_about(graph):
    """The checks above pass on an empty graph too: show the builder finds real edges of each
    kind (module-level, lazy, ``from mipview import module``, relative-free package paths)."""
    targets = {m: {(i.target, i.lazy) for i in imports} for m, imports in graph.items()}
    assert ("mipview.ui.app", True) in targets["mipview.cli"]  # cmd_gui
    assert ("mipview.cli_batch", True) in targets["mipview.cli"]  # inside build_parser
    assert ("mipview.analysis", False) in targets["mipview.ui.worker"]  # from mipview import ...
    assert ("PySide6.QtCore", False) in targets["mipview.ui.worker"]
    assert ("mipview", False) in targets["mipview.cli"]  # MipviewError: not a module
    assert ("mipview.gpu.strategies.base", False) in targets["mipview.gpu.strategies.blit"]
    assert {"mipview", "mipview.ui.worker", "mipview.gpu.strategies"} <= set(graph)


# --- the checker fails where it must ---------------------------------------------------------------
def test_find_cycles_reports_a_readable_chain():
    edges = {"a": ["b"], "b": ["c", "x.external"], "c": ["a", "d"], "d": [], "e": ["a"]}
    assert find_cycles(edges) == [["a", "b", "c", "a"]]
    assert describe_cycle(["a", "b", "c", "a"]) == "a -> b -> c -> a"
    assert find_cycles({"a": ["a"]}) == [["a", "a"]]
    assert find_cycles({"a": ["b"], "b": ["c"], "c": []}) == []
    # two separate cycles: each reported
    assert find_cycles({"a": ["b"], "b": ["a"], "c": ["d"], "d": ["c"]}) == [["a", "b", "a"],
                                                                           ["c", "d", "c"]]


def test_violations_name_the_forbidden_edges():
    graph = {
        "mipview.report": [Import("mipview.verdict", False, 1), Import("PySide6.QtCore", True, 9)],
        "mipview.gpu.runner": [Import("mipview.ui.messages", False, 4)],
        "mipview.ui.app": [Import("mipview.cli", True, 108), Import("mipview.sweep", False, 2)],
        "mipview.cli": [Import("mipview.ui.app", True, 3), Import("mipview.ui.main_window",
                                                                  True, 5)],
        "mipview.cli_mean": [Import("mipview.ui.app", False, 7), Import("pyqtgraph", True, 8)],
    }
    broken = violations(graph)
    assert len(broken) == 6, broken
    assert any(b.startswith("mipview.report line 9 imports PySide6.QtCore (lazy)") for b in broken)
    assert any(b.startswith("mipview.gpu.runner line 4 imports mipview.ui.messages")
               for b in broken)
    assert any(b.startswith("mipview.ui.app line 108 imports mipview.cli") for b in broken)
    assert any("mipview.cli line 5 imports mipview.ui.main_window" in b for b in broken)
    assert any("mipview.cli_mean line 7 imports mipview.ui.app:" in b for b in broken)  # eager
    assert any("mipview.cli_mean line 8 imports pyqtgraph" in b for b in broken)
    assert not any("line 3 " in b or "verdict" in b or "sweep" in b for b in broken)


def test_builder_resolves_relative_lazy_and_module_imports_and_finds_their_cycle(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("class Error(Exception):\n    pass\n")
    (pkg / "a.py").write_text("from pkg import Error, b\n")
    (pkg / "b.py").write_text("def f():\n    from .sub import c\n    return c\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                      "    from ..a import Error\nfrom . import d\n")
    (pkg / "sub" / "d.py").write_text("import json\nimport pkg.sub as s\n")
    graph = import_graph(pkg)
    edges = {m: sorted((i.target, i.lazy) for i in imports) for m, imports in graph.items()}
    assert edges == {
        "pkg": [],
        "pkg.a": [("pkg", False), ("pkg.b", False)],
        "pkg.b": [("pkg.sub.c", True)],
        "pkg.sub": [],
        "pkg.sub.c": [("pkg.a", False), ("pkg.sub.d", False), ("typing", False)],
        "pkg.sub.d": [("json", False), ("pkg.sub", False)],
    }
    cycles = find_cycles(mipview_edges(graph))
    assert cycles == [["pkg.a", "pkg.b", "pkg.sub.c", "pkg.a"]]
    assert describe_cycle(cycles[0], graph) == \
        "pkg.a -> pkg.b (line 1) -> pkg.sub.c (line 2, lazy) -> pkg.a (line 3)"
