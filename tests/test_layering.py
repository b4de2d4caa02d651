"""The architecture, enforced (docs/architecture.md).

Layers, lowest first: the game modules of ``big2`` (cards, rules, hand_ranking, board,
game, log, render), then ``big2.players``, ``big2.evaluation``, ``big2.app``, then
``observers``, ``envs`` and ``training``. A module may import its own layer and the
layers below, never above; the imports form no circle of any kind (those at module level,
inside functions and under ``if TYPE_CHECKING:`` all count); no product module imports
the lab (``lab``) or the benchmarks (``bench``); and ``big2`` imports with numpy, torch,
gymnasium and PettingZoo blocked.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Collection, Iterator, Mapping
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("big2", "observers", "envs", "training")
LAYERS = ("big2", "big2.players", "big2.evaluation", "big2.app", "observers", "envs", "training")
HEAVY = ("numpy", "torch", "gymnasium", "pettingzoo", "tianshou")
OUTSIDE = ("lab", "bench")  # experiments and benchmarks: they import the product, not back


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules_under(root: Path, packages: Collection[str]) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``, by dotted name."""
    found = (p for package in packages for p in sorted((root / package).rglob("*.py")))
    return {module_name(p, root): p for p in found}


MODULES = modules_under(ROOT, PACKAGES)


def layer(module: str) -> int | None:
    """The index in LAYERS of the deepest layer that ``module`` belongs to (None: outside)."""
    found = [i for i, name in enumerate(LAYERS) if module == name or module.startswith(name + ".")]
    return max(found) if found else None


def import_nodes(path: Path) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement of ``path``, wherever it stands: at module level, inside a
    function or class, under ``if TYPE_CHECKING:``, in a ``try``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node


def source_of(node: ast.ImportFrom, module: str, path: Path) -> str:
    """The absolute name ``from ... import`` reads from (relative imports resolved).

    >>> node = ast.parse("from .. import cards").body[0]
    >>> source_of(node, "big2.hand_ranking.catalog", Path("big2/hand_ranking/catalog.py"))
    'big2'
    """
    if not node.level:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
    return f"{base}.{node.module}" if node.module else base


def imports(module: str, modules: Mapping[str, Path] = MODULES) -> set[str]:
    """The modules ``module`` imports, anywhere in it: ``from a import b`` counts as
    ``a.b`` when that is one of ``modules``, else as ``a``."""
    path = modules[module]
    out: set[str] = set()
    for node in import_nodes(path):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
            continue
        source = source_of(node, module, path)
        for alias in node.names:
            full = f"{source}.{alias.name}"
            out.add(full if full in modules else source)
    return out


def import_graph(modules: Mapping[str, Path]) -> dict[str, set[str]]:
    """Each of ``modules`` -> the others of ``modules`` it imports."""
    return {m: {n for n in imports(m, modules) if n in modules and n != m} for m in modules}


def circles(graph: Mapping[str, Collection[str]]) -> list[list[str]]:
    """The import circles of ``graph`` (module -> modules it imports), each as the path
    ``a -> b -> ... -> a`` from its first name in sorted order; one edge of each is set
    aside before looking again, so every circle shows up, if not every path through it.

    >>> circles({"b": {"a"}, "a": {"b"}, "c": {"a"}})
    [['a', 'b', 'a']]
    >>> circles({"a": {"b"}, "b": set()})
    []
    """
    left = {m: set(names) for m, names in graph.items()}
    found = []
    while True:
        try:
            TopologicalSorter(left).prepare()
            return sorted(found)
        except CycleError as e:  # [x, y, ..., x]: y imports x
            ring = list(reversed(e.args[1][1:]))
            first = ring.index(min(ring))
            ring = ring[first:] + ring[:first]
            found.append([*ring, ring[0]])
            left[ring[0]].discard(ring[1])


def outside_imports(modules: Mapping[str, Path]) -> dict[str, list[str]]:
    """The modules of ``modules`` that import the lab or the benchmarks, and what."""
    found = {m: [n for n in imports(m, modules) if n.split(".")[0] in OUTSIDE] for m in modules}
    return {m: sorted(names) for m, names in found.items() if names}


def test_every_project_module_has_a_layer():
    assert len(MODULES) > 30
    assert all(layer(m) is not None for m in MODULES)
    assert layer("big2.game") == 0 and layer("big2.players.search") == 1
    assert layer("training.train") == 6 and layer("numpy") is None


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_a_higher_layer(module):
    own = layer(module)
    upward = sorted(name for name in imports(module) if (layer(name) or 0) > (own or 0))
    assert not upward, f"{module} (layer {LAYERS[own or 0]}) imports {upward} from above"


def test_kernels_import_only_kernels_of_the_env_layer():
    """The compiled kernels sit below the engine, the env and its opponents."""
    kernels = [m for m in MODULES if m.startswith("envs.kernels")]
    assert kernels
    for module in kernels:
        above = sorted(n for n in imports(module)
                       if n.startswith("envs") and not n.startswith("envs.kernels"))  # fmt: skip
        assert not above, f"{module} imports {above}"


def test_imports_form_no_circle():
    """Module level, inside functions and under TYPE_CHECKING alike."""
    found = circles(import_graph(MODULES))
    assert not found, "import circles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_no_product_module_imports_the_lab_or_the_benchmarks():
    found = outside_imports(MODULES)
    assert not found, f"product modules import the lab or the benchmarks: {found}"


# modules that take what training.spec resolved and never resolve a name themselves: what
# they may not import (the Config, the spec, and where names become observers and rules)
RESOLVED_ONLY = {"training.nets": ("training.config", "training.spec", "observers", "big2.rules")}


@pytest.mark.parametrize("module", sorted(RESOLVED_ONLY))
def test_the_networks_take_resolved_objects(module):
    found = sorted(imports(module) & set(RESOLVED_ONLY[module]))
    assert not found, f"{module} imports {found}; it takes training.spec's resolved objects"


FAKE = {
    "fake/__init__.py": "from fake import a\n",
    "fake/a.py": (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from fake.b import B\n"
    ),
    "fake/b.py": "def late():\n    from . import c\n",
    "fake/c.py": "class C:\n    def m(self):\n        import fake.sub.d\n",
    "fake/sub/__init__.py": "",
    "fake/sub/d.py": "from ..a import A\nfrom fake.sub import e\n",
    "fake/sub/e.py": "def f():\n    from lab.probe import probe\n    import bench.train\n",
}


@pytest.fixture
def fake(tmp_path):
    """A small package whose one circle runs through every kind of import: under
    TYPE_CHECKING, inside a function, inside a method, relative, ``from package import
    module``; and one module that imports the lab and the benchmarks inside a function."""
    for name, text in FAKE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return modules_under(tmp_path, ["fake"])


def test_the_circle_finder_sees_every_kind_of_import(fake):
    graph = import_graph(fake)
    assert graph["fake.sub.d"] == {"fake.a", "fake.sub.e"}
    assert graph["fake"] == {"fake.a"}
    assert circles(graph) == [["fake.a", "fake.b", "fake.c", "fake.sub.d", "fake.a"]]
    graph["fake.a"].clear()  # the TYPE_CHECKING import alone closed it
    assert circles(graph) == []


def test_the_circle_finder_reports_every_circle():
    graph = {"a": {"b"}, "b": {"a", "c"}, "c": {"d"}, "d": {"c", "e"}, "e": set()}
    assert circles(graph) == [["a", "b", "a"], ["c", "d", "c"]]


def test_a_lab_or_bench_import_is_found(fake):
    assert outside_imports(fake) == {"fake.sub.e": ["bench.train", "lab.probe"]}


BLOCKER = """
import importlib.abc, sys
HEAVY = {heavy!r}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HEAVY:
            raise ImportError(f"blocked: {{name}}")
        return None
sys.meta_path.insert(0, Block())
import importlib
for module in {modules!r}:
    importlib.import_module(module)
print("ok", len({modules!r}))
"""


def test_big2_imports_with_heavy_packages_blocked():
    big2 = sorted(m for m in MODULES if layer(m) is not None and layer(m) <= 3)
    code = BLOCKER.format(heavy=HEAVY, modules=big2)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ok", str(len(big2))]


def test_the_blocker_blocks():
    code = BLOCKER.format(heavy=HEAVY, modules=["observers"])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode != 0 and "blocked: numpy" in out.stderr
