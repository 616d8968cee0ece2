"""The package's layers are folders, and imports point one way (docs/design.md).

A module imports only its own layer and the layers below it, at module level and inside
functions alike (only ``if TYPE_CHECKING`` imports, which never run, are left out); the
module-level imports between the package's modules form no cycle; no source file is over
700 lines.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "backgammon"

# Lowest first.  Modules at the top of the package sit with the layer named for them.
# The command line launches every face, the web server included, so it comes last.
LAYERS = (
    "core",
    "ids",
    "play",
    "records",
    "evaluation",
    "players",
    "engine",
    "judging",
    "training",
    "env",
    "protocols",
    "web",
    "cli",
)
# svg.py draws with the core alone (``Position._repr_svg_`` and ``Match._repr_svg_`` use it).
TOP = {
    "_version": "core",
    "workers": "core",
    "svg": "core",
    "__init__": "cli",
    "__main__": "cli",
}
MAX_LINES = 700


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1:
        return LAYERS.index(TOP["__init__"])
    name = parts[1]
    return LAYERS.index(TOP.get(name, name))


def _sources() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(module: str, path: Path, known: set[str], *, lazy: bool = False) -> set[str]:
    """The package's modules that ``module`` imports when it is loaded (never those under
    ``if TYPE_CHECKING``); with ``lazy``, those inside its functions and classes too."""
    tree = ast.parse(path.read_text("utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.If):
                test = node.test
                if isinstance(test, ast.Name) and test.id == "TYPE_CHECKING":
                    visit(node.orelse)
                    continue
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)
            elif lazy and isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With)
            ):
                visit(node.body)
            elif lazy and isinstance(node, (ast.For, ast.While)):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Import):
                out.update(a.name for a in node.names if a.name.split(".")[0] == "backgammon")
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
                    base = f"{base}.{node.module}" if node.module else base
                if base.split(".")[0] != "backgammon":
                    continue
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    out.add(full if full in known else base)

    visit(tree.body)
    return out


@functools.cache
def _parsed_graph(lazy: bool) -> dict[str, frozenset[str]]:
    """The import graph, parsed once a run (each of the hundreds of cases reads it)."""
    sources = _sources()
    known = set(sources)
    return {m: frozenset(_imports(m, p, known, lazy=lazy) - {m}) for m, p in sources.items()}


def _graph(*, lazy: bool = False) -> dict[str, set[str]]:
    return {m: set(targets) for m, targets in _parsed_graph(lazy).items()}


def test_every_module_is_in_a_layer() -> None:
    for module in _sources():
        _layer(module)  # ValueError names a folder the table does not list


@pytest.mark.parametrize("module", sorted(_sources()))
def test_no_import_from_a_higher_layer(module: str) -> None:
    higher = {m for m in _graph(lazy=True)[module] if _layer(m) > _layer(module)}
    assert not higher, f"{module} imports the higher layer(s) {sorted(higher)}"


def test_no_import_cycle() -> None:
    graph = _graph()
    # Importing a package runs its __init__, so an edge to a submodule is also one to
    # the packages that hold it.
    for module, targets in graph.items():
        for target in list(targets):
            parts = target.split(".")
            for i in range(2, len(parts)):
                parent = ".".join(parts[:i])
                if parent in graph and parent != module and not module.startswith(parent + "."):
                    targets.add(parent)
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                walk(nxt)
        stack.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module)


def test_the_checker_sees_upward_imports_and_cycles(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "from backgammon.web import app\n"
        "if TYPE_CHECKING:\n    from backgammon.cli import session\n"
        "def f():\n    from backgammon.training import td\n",
        "utf-8",
    )
    known = {"backgammon.web.app", "backgammon.training.td"}
    assert _imports("backgammon.core.m", source, known) == {"backgammon.web.app"}
    everything = _imports("backgammon.core.m", source, known, lazy=True)
    assert everything == {"backgammon.web.app", "backgammon.training.td"}


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: p.name)
def test_no_source_file_is_over_700_lines(path: Path) -> None:
    lines = len(path.read_text("utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(PACKAGE.parent)} has {lines} lines"


# The web's rooms, lowest first: its shared values, the store, the service, the routes, the
# application that puts them together, the package that serves it.
WEB_ROOMS = (("errors", "schemas", "guards"), ("store",), ("service",), ("api",), ("app",))
WEB = PACKAGE / "web"


def _web_room(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 2:
        return len(WEB_ROOMS)
    return next(i for i, names in enumerate(WEB_ROOMS) if parts[2] in names)


@pytest.mark.parametrize("module", sorted(m for m in _sources() if m.startswith("backgammon.web")))
def test_web_rooms_import_one_way(module: str) -> None:
    web = {m for m in _graph()[module] if m.startswith("backgammon.web")}
    higher = {m for m in web if _web_room(m) > _web_room(module)}
    assert not higher, f"{module} imports the higher room(s) {sorted(higher)}"


def _web_trees() -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text("utf-8")) for p in sorted(WEB.rglob("*.py"))}


def test_request_and_response_models_live_only_in_the_schemas() -> None:
    for path, tree in _web_trees().items():
        models = [
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef)
            and any(isinstance(b, ast.Name) and b.id == "BaseModel" for b in node.bases)
        ]
        assert path.name == "schemas.py" or not models, f"{path}: {models}"


def test_routes_live_only_in_the_api_room() -> None:
    verbs = {"get", "post", "put", "patch", "delete", "websocket"}
    for path, tree in _web_trees().items():
        routes = [
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            for d in node.decorator_list
            if isinstance(d, ast.Call)
            and isinstance(d.func, ast.Attribute)
            and d.func.attr in verbs
        ]
        assert path.parent.name == "api" or not routes, f"{path}: {routes}"
