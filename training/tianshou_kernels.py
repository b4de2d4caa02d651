"""Tianshou's numba kernels, compiled once per machine instead of once per process.

Tianshou 2.0 writes its GAE and n-step returns (``tianshou.algorithm.algorithm_base``)
and its vector buffer's index walks (``tianshou.data.buffer.manager``) as numba functions
without ``cache=True``, and compiles them when a process builds its first policy and its
first buffer: about 10 s of every training process's start on 2 cores (Intel Xeon),
measured with numba's compile events on ``python -m training.train --steps 200``
(``_prev_index`` 3.4 s, ``_nstep_return`` 1.9 s, ``_gae`` 1.1 s, ``_next_index`` 0.7 s),
where the run's own training took less. Every ablation cell, recipe member and Ray actor
is a process of its own and paid it again. :func:`cache_kernels` turns numba's on-disk
cache on for them, as ``cache=True`` does for this project's kernels (``envs/kernels``):
the first process compiles and writes them next to Tianshou's sources (or in numba's
user-wide cache directory where those are read-only), later ones load them. Numba checks
each cache entry against its source file's time stamp, so an upgraded Tianshou compiles
again. ``training.rollout`` calls it on import, before any policy or buffer is built.

>>> from tianshou.data.buffer import manager
>>> cache_kernels()
>>> manager._prev_index._cache.__class__.__name__
'FunctionCache'
"""

from __future__ import annotations

from functools import cache
from types import ModuleType

from numba.core.dispatcher import Dispatcher
from tianshou.algorithm import algorithm_base
from tianshou.data.buffer import manager
from tianshou.data.utils import segtree

MODULES: tuple[ModuleType, ...] = (algorithm_base, manager, segtree)


@cache  # once per process
def cache_kernels() -> None:
    """Turn numba's on-disk cache on for every numba function in :data:`MODULES` (where
    numba finds no writable place for a cache, they compile in every process, as before)."""
    for module in MODULES:
        for kernel in vars(module).values():
            if isinstance(kernel, Dispatcher):
                try:
                    kernel.enable_caching()
                except RuntimeError:  # numba: "cannot cache function ...: no locator available"
                    continue
