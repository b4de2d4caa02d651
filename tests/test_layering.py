"""The architecture, enforced (docs/architecture.md).

Layers, lowest first: the game modules of ``big2`` (cards, rules, hand_ranking, board,
game, log, render), then ``big2.players``, ``big2.evaluation``, ``big2.app``, then
``observers``, ``envs`` and ``training``. A module may import its own layer and the
layers below, never above; module-level imports form no cycle; and ``big2`` imports
with numpy, torch, gymnasium and PettingZoo blocked.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("big2", "observers", "envs", "training")
LAYERS = ("big2", "big2.players", "big2.evaluation", "big2.app", "observers", "envs", "training")
HEAVY = ("numpy", "torch", "gymnasium", "pettingzoo", "tianshou")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {
    module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))
}


def layer(module: str) -> int | None:
    """The index in LAYERS of the deepest layer that ``module`` belongs to (None: outside)."""
    found = [i for i, name in enumerate(LAYERS) if module == name or module.startswith(name + ".")]
    return max(found) if found else None


def imports(path: Path, top_level_only: bool = False) -> set[str]:
    """The modules ``path`` imports (``from a import b`` counts as a.b when that is a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                out.add(full if full in MODULES else node.module)
    return out


def test_every_project_module_has_a_layer():
    assert len(MODULES) > 30
    assert all(layer(m) is not None for m in MODULES)
    assert layer("big2.game") == 0 and layer("big2.players.search") == 1
    assert layer("training.train") == 6 and layer("numpy") is None


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_a_higher_layer(module):
    own = layer(module)
    upward = sorted(name for name in imports(MODULES[module]) if (layer(name) or 0) > (own or 0))
    assert not upward, f"{module} (layer {LAYERS[own or 0]}) imports {upward} from above"


def test_kernels_import_only_kernels_of_the_env_layer():
    """The compiled kernels sit below the engine, the env and its opponents."""
    kernels = [m for m in MODULES if m.startswith("envs.kernels")]
    assert kernels
    for module in kernels:
        above = sorted(n for n in imports(MODULES[module])
                       if n.startswith("envs") and not n.startswith("envs.kernels"))  # fmt: skip
        assert not above, f"{module} imports {above}"


def test_module_level_imports_have_no_cycle():
    graph = {
        module: {name for name in imports(path, top_level_only=True) if name in MODULES}
        for module, path in MODULES.items()
    }
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as e:
        pytest.fail(f"import cycle: {' -> '.join(e.args[1])}")


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
