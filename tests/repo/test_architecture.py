"""The package layout holds: read from the source with ``ast``, so a change that breaks it fails.

Covers: no import cycle between the packages (and top-level modules) of ``zettelclaw``, nor
between the modules of one package; every package imports only the layers below it that
``MAY_IMPORT`` names (the table of docs/02-architecture.md), and every package has a layer; the
log (``log/``) imports nothing above it; no module outside ``index/`` holds SQL or calls
``execute``; the objects ``app.build_app`` wires are constructed nowhere else in the package;
each check reports the module and line that break it.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import zettelclaw

PACKAGE = Path(zettelclaw.__file__).parent
# what log/ may import: the foundation modules, which import nothing of zettelclaw above them
LOG_MAY_IMPORT = {"errors", "failpoints", "files", "home", "lock", "log", "scrub"}
# The layers, bottom up, and what each may import: the table of docs/02-architecture.md ("Who
# may import whom"). Within a layer, any import that makes no cycle.
LAYERS: dict[str, set[str]] = {
    "foundation": {"errors", "files", "lock", "home", "failpoints", "config", "state",
                   "safe_open", "scrub", "machine_state", "freed_memory", "priority", "long_lived",
                   "agent_ids", "session_keys", "schedule", "prompts_loader", "supervise",
                   "panics"},
    "log": {"log"},
    "stores": {"subjects", "workspace"},
    "index": {"index"},
    "domain": {"llm", "search", "recall", "extraction", "briefing", "openclaw", "forget",
               "vault", "importing", "artifacts", "replicate"},
    "app": {"app"},
    "agents": {"agents"},
    "protocol": {"protocol"},
    "methods": {"methods"},
    "server": {"server"},
    "entry": {"serve", "cli", "client", "__main__"},
}
_BELOW_APP = {"foundation", "log", "stores", "index", "domain"}
MAY_IMPORT: dict[str, set[str]] = {
    "foundation": {"foundation"},
    "log": {"foundation"},
    "stores": {"foundation", "log", "stores"},
    "index": {"foundation", "log", "stores"},
    "domain": _BELOW_APP,
    "app": _BELOW_APP,
    "agents": _BELOW_APP | {"app"},
    # models, framing, dispatch: the vocabulary of entries and subjects, no index, no search
    "protocol": {"foundation", "log", "stores", "protocol"},
    "methods": _BELOW_APP | {"app", "agents", "protocol", "methods"},
    "server": {"foundation", "protocol", "server"},
    "entry": set(LAYERS),
}
SQL = re.compile(r"\b(SELECT\s.+\sFROM|INSERT\s+(OR\s+\w+\s+)?INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET"
                 r"|CREATE\s+(TABLE|INDEX|VIRTUAL|TRIGGER)|DROP\s+TABLE)\b", re.DOTALL)
# built once, by app.build_app
WIRED = {"App", "Index", "Ingester", "WorkspaceIndexer", "Freshness", "Handoff", "Searcher",
         "Syncer", "Router", "HostModels", "Extraction", "Worker", "Briefing", "Vectorizer"}
CONSTRUCTION_SITE = "app.py"
# another program's: the term index's follower process opens the index it follows (index/)
OTHER_PROGRAMS = {"index/terms_follower.py"}
# the agents' memories: the pool and its roster, built once, by agents/pool.open_agents
POOL = {"Agents", "Roster"}
POOL_SITE = "agents/pool.py"


@functools.cache
def _parsed() -> tuple[tuple[str, tuple[ast.AST, ...]], ...]:
    """Every module of the package and the nodes of its tree, parsed and walked once a run:
    each check looks at them all (parsing the package is most of the checks' time)."""
    return tuple((path.relative_to(PACKAGE).as_posix(),
                  tuple(ast.walk(ast.parse(path.read_text(), str(path)))))
                 for path in sorted(PACKAGE.rglob("*.py")))


def modules() -> Iterator[tuple[str, tuple[ast.AST, ...]]]:
    """Each module (its path under the package) with every node of its tree."""
    yield from _parsed()


def unit(relative: str) -> str:
    """The package a module belongs to (``index/entries.py`` -> index), or the module itself
    for a top-level one (``app.py`` -> app)."""
    first = relative.split("/", maxsplit=1)[0]
    return first.removesuffix(".py")


def imports(nodes: tuple[ast.AST, ...]) -> Iterator[tuple[str, int]]:
    """The zettelclaw units a module imports, with the line of each import."""
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            if parts[0] != "zettelclaw":
                continue
            if len(parts) > 1:
                yield parts[1], node.lineno
            else:  # from zettelclaw import lock, schedule
                for alias in node.names:
                    yield alias.name, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "zettelclaw" and len(parts) > 1:
                    yield parts[1], node.lineno


def layer_of(unit_name: str) -> str | None:
    return next((layer for layer, units in LAYERS.items() if unit_name in units), None)


def module_graph() -> dict[str, dict[str, str]]:
    """module -> {imported module of the same package: where}, type-only imports included."""
    edges: dict[str, dict[str, str]] = {}
    for relative, nodes in modules():
        if "/" not in relative:
            continue
        source = relative.removesuffix(".py").replace("/", ".")
        package = source.split(".")[0]
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                name = target.removeprefix("zettelclaw.")
                if (name.split(".")[0] == package and name != source
                        and (PACKAGE / f"{name.replace('.', '/')}.py").is_file()):
                    edges.setdefault(source, {}).setdefault(name, f"{relative}:{node.lineno}")
    return edges


def graph() -> dict[str, dict[str, str]]:
    """unit -> {imported unit: where (module:line)}."""
    edges: dict[str, dict[str, str]] = {}
    for relative, nodes in modules():
        source = unit(relative)
        for target, lineno in imports(nodes):
            if target not in {source, "__version__"}:
                edges.setdefault(source, {}).setdefault(target, f"{relative}:{lineno}")
    return edges


def cycles(edges: dict[str, dict[str, str]]) -> list[list[str]]:
    """Strongly connected components of more than one unit (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in list(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_between_packages() -> None:
    edges = graph()
    broken = []
    for component in cycles(edges):
        broken += [f"{a} -> {b} ({edges[a][b]})" for a in component
                   for b in edges.get(a, {}) if b in component]
    assert not broken, "import cycle:\n" + "\n".join(broken)


def test_no_import_cycle_between_the_modules_of_a_package() -> None:
    edges = module_graph()
    broken = []
    for component in cycles(edges):
        broken += [f"{a} -> {b} ({edges[a][b]})" for a in component
                   for b in edges.get(a, {}) if b in component]
    assert not broken, "import cycle:\n" + "\n".join(broken)


def test_every_package_has_a_layer() -> None:
    units = {unit(relative) for relative, _ in modules()} - {"__init__"}
    unplaced = sorted(u for u in units if layer_of(u) is None)
    assert not unplaced, f"add these to LAYERS (and docs/02-architecture.md): {unplaced}"
    assert set(MAY_IMPORT) == set(LAYERS)


def test_each_layer_imports_only_what_the_table_allows() -> None:
    broken = []
    for source, targets in graph().items():
        layer = layer_of(source)
        if layer is None:
            continue  # test_every_package_has_a_layer says so
        for target, where in targets.items():
            target_layer = layer_of(target)
            if target_layer is not None and target_layer not in MAY_IMPORT[layer]:
                broken.append(f"{source} ({layer}) -> {target} ({target_layer}): {where}")
    assert not broken, "imports the layers do not allow:\n" + "\n".join(broken)


def test_the_log_imports_nothing_above_it() -> None:
    upward = {target: where for target, where in graph().get("log", {}).items()
              if target not in LOG_MAY_IMPORT}
    assert not upward, upward


def test_index_sql_lives_in_the_index_package() -> None:
    found = []
    for relative, nodes in modules():
        # the team database's Postgres (docs/15-team.md): its statements live in one module
        if relative.startswith("index/") or relative in {"replicate/pg_store.py",
                                                          "replicate/pg_schema.py"}:
            continue
        for node in nodes:
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and SQL.search(node.value):
                found.append(f"{relative}:{node.lineno}: {node.value[:60]!r}")
            if isinstance(node, ast.Attribute) and node.attr in {"execute", "executemany",
                                                                  "executescript"}:
                found.append(f"{relative}:{node.lineno}: .{node.attr}(")
    assert not found, "SQL outside index/:\n" + "\n".join(found)


@pytest.mark.slow
def test_the_app_is_built_in_one_place() -> None:
    found = []
    for relative, nodes in modules():
        if relative == CONSTRUCTION_SITE or relative in OTHER_PROGRAMS:
            continue
        for node in nodes:
            if isinstance(node, ast.Call):
                name = (node.func.id if isinstance(node.func, ast.Name) else
                        node.func.attr if isinstance(node.func, ast.Attribute) else None)
                if name in WIRED:
                    found.append(f"{relative}:{node.lineno}: {name}(...)")
    assert not found, "constructed outside app.py:\n" + "\n".join(found)


def test_the_agents_pool_is_built_in_one_place() -> None:
    """Every method reaches a memory through the one pool (agents.lease), so that no handler
    can hold an App of its own, on another agent's files."""
    found = [f"{relative}:{node.lineno}" for relative, nodes in modules() if relative != POOL_SITE
             for node in nodes if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id in POOL]
    assert not found, f"constructed outside {POOL_SITE}: {found}"


def test_the_checks_see_what_they_look_for() -> None:
    """The checks above pass because the tree is clean, not because they see nothing."""
    edges = graph()
    assert edges["app"]["index"].startswith("app.py:")
    assert cycles({"a": {"b": ""}, "b": {"c": ""}, "c": {"a": ""}}) == [["a", "b", "c"]]
    assert module_graph()["search.semantic"]["search.matrix"].startswith("search/semantic.py:")
    assert "protocol" not in MAY_IMPORT["domain"]  # llm/ once imported protocol/
    assert "index" not in MAY_IMPORT["protocol"]
    assert "server" not in MAY_IMPORT["agents"]
    assert SQL.search("SELECT e.* FROM entries e WHERE x")
    assert SQL.search("INSERT OR REPLACE INTO vectors VALUES (?)")
    assert not SQL.search("select the best one from the list")
    tree = ast.parse((PACKAGE / CONSTRUCTION_SITE).read_text())
    built = {node.func.id for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert WIRED - {"App"} <= built, WIRED - built
