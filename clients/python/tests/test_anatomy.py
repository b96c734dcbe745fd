"""The package's anatomy, held to its rules as apps/server/test/architecture.test.ts holds the
server's: the parts (core, transport, fast paths, integrations, offline evaluation, the clients)
import one way, no module takes part in an import cycle (an import inside a function counts: it
is how a cycle hides), and no function is longer than 60 lines. The rules are data below; each
is also run on a planted violation, which it must refuse."""

import ast
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Set, Tuple

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"

#: Each part of the package (a dotted prefix) and the parts it may import, itself included. The
#: core is complete alone; the fast paths replace parts of it behind one seam
#: (``arbiter._core.engine``); the clients put everything together.
PARTS: Dict[str, Tuple[str, ...]] = {
    "arbiter._core": ("arbiter._core",),
    "arbiter._fast": ("arbiter._core", "arbiter._fast"),
    "arbiter._transport": ("arbiter._core", "arbiter._transport", "arbiter._version"),
    "arbiter.integrations": ("arbiter._core", "arbiter.integrations"),
    "arbiter._evaluation": ("arbiter._core", "arbiter._transport", "arbiter.integrations", "arbiter._evaluation"),
    "arbiter._client": ("arbiter",),
    "arbiter._version": (),
    "arbiter": ("arbiter",),
}

MAX_FUNCTION_LINES = 60


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def read_modules(root: Path) -> Dict[str, Tuple[Path, ast.Module]]:
    """Every module under ``root`` (a folder holding the ``arbiter`` package), parsed."""
    return {
        module_name(root, path): (path, ast.parse(path.read_text(encoding="utf-8"), str(path)))
        for path in sorted((root / "arbiter").rglob("*.py"))
    }


def imports_of(name: str, is_package: bool, tree: ast.Module, known: Set[str]) -> Set[str]:
    """The package's own modules ``name`` imports, wherever the import statement stands."""
    out: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, is_package, node.module, node.level)
            for alias in node.names:
                target = "%s.%s" % (base, alias.name)
                if target in known:
                    out.add(target)
                elif base in known:
                    out.add(base)
    out.discard(name)
    return out


def _absolute(name: str, is_package: bool, module: Optional[str], level: int) -> str:
    if level == 0:
        return module or ""
    parts = name.split(".") if is_package else name.split(".")[:-1]
    parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([module] if module else []))


def import_graph(root: Path) -> Dict[str, Set[str]]:
    modules = read_modules(root)
    known = set(modules)
    return {name: imports_of(name, path.name == "__init__.py", tree, known) for name, (path, tree) in modules.items()}


def cycles(graph: Mapping[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def part_of(name: str) -> str:
    """The longest prefix of ``PARTS`` that holds ``name``."""
    best = ""
    for part in PARTS:
        if (name == part or name.startswith(part + ".")) and len(part) > len(best):
            best = part
    return best


def layer_violations(graph: Mapping[str, Set[str]]) -> List[str]:
    out = []
    for name, targets in sorted(graph.items()):
        allowed = PARTS[part_of(name)]
        for target in sorted(targets):
            if not any(target == a or target.startswith(a + ".") for a in allowed):
                out.append("%s imports %s" % (name, target))
    return out


def long_functions(root: Path, limit: int = MAX_FUNCTION_LINES) -> List[str]:
    out = []
    for name, (_, tree) in read_modules(root).items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > limit:
                    out.append("%s.%s: %d lines" % (name, node.name, length))
    return out


# -- the package -------------------------------------------------------------------------------


def test_no_module_takes_part_in_an_import_cycle() -> None:
    assert cycles(import_graph(SRC)) == []


def test_each_part_imports_only_the_parts_below_it() -> None:
    graph = import_graph(SRC)
    assert all(part_of(name) for name in graph), [name for name in graph if not part_of(name)]
    assert layer_violations(graph) == []


def test_no_function_is_longer_than_60_lines() -> None:
    assert long_functions(SRC) == []


def test_the_core_is_split_into_its_parts() -> None:
    """Config, bucketing, evaluation and events each a folder; no flat private module left at the
    top but the version, which the build backend reads."""
    core = SRC / "arbiter" / "_core"
    assert {p.name for p in core.iterdir() if p.is_dir() and p.name != "__pycache__"} == {
        "config",
        "bucketing",
        "evaluation",
        "events",
    }
    top = sorted(p.name for p in (SRC / "arbiter").glob("_*.py"))
    assert top == ["__init__.py", "_version.py"]


# -- the guards, on planted violations ---------------------------------------------------------


def plant(tmp_path: Path, files: Mapping[str, str]) -> Path:
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_a_cycle_hidden_in_a_function_is_found(tmp_path: Path) -> None:
    root = plant(
        tmp_path,
        {
            "arbiter/__init__.py": "",
            "arbiter/_core/__init__.py": "",
            "arbiter/_core/a.py": "from arbiter._core.b import thing\n",
            "arbiter/_core/b.py": "def thing():\n    from . import a\n    return a\n",
        },
    )
    assert cycles(import_graph(root)) == [["arbiter._core.a", "arbiter._core.b"]]


def test_an_import_against_the_layers_is_found(tmp_path: Path) -> None:
    root = plant(
        tmp_path,
        {
            "arbiter/__init__.py": "",
            "arbiter/_core/__init__.py": "",
            "arbiter/_core/store.py": "from arbiter._fast import engine\n",
            "arbiter/_fast/__init__.py": "",
            "arbiter/_fast/engine.py": "",
        },
    )
    assert layer_violations(import_graph(root)) == ["arbiter._core.store imports arbiter._fast.engine"]


def test_a_function_of_61_lines_is_found(tmp_path: Path) -> None:
    body = "".join("    x%d = %d\n" % (i, i) for i in range(58))
    root = plant(
        tmp_path,
        {
            "arbiter/__init__.py": "",
            "arbiter/ok.py": "def fits():\n%s    return 0\n" % body,
            "arbiter/long.py": "def too_long():\n%s    y = 1\n    return y\n" % body,
        },
    )
    assert long_functions(root) == ["arbiter.long.too_long: 61 lines"]


@pytest.mark.parametrize(
    ("name", "is_package", "module", "level", "expected"),
    [
        ("arbiter._core.a", False, "b", 1, "arbiter._core.b"),
        ("arbiter._core", True, "b", 1, "arbiter._core.b"),
        ("arbiter._core.a", False, None, 2, "arbiter"),
        ("arbiter._core.a", False, "arbiter.x", 0, "arbiter.x"),
    ],
)
def test_relative_imports_resolve_as_python_does(
    name: str, is_package: bool, module: Optional[str], level: int, expected: str
) -> None:
    assert _absolute(name, is_package, module, level) == expected
