"""Writing rows of the vector env's buffers in place (:mod:`envs.outputs`), compiled.

numpy's fancy assignment (``a[rows] = 0``) makes a temporary and walks the index once per
call; these kernels write each listed row directly.

>>> a = np.ones((3, 4), np.float32)
>>> fill_rows(a, np.array([2, 0]), 2, 0.0)
>>> a.tolist()
[[0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]]
>>> copy_rows(np.array([[7, 8]], np.float32), a, np.array([1]))
>>> a[1].tolist()
[7.0, 8.0, 1.0, 1.0]
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def fill_rows(array: np.ndarray, rows: np.ndarray, width: int, value: float) -> None:
    """Set the first ``width`` entries of each row ``rows[i]`` of ``array`` to ``value``."""
    for i in range(rows.shape[0]):
        array[rows[i], :width] = value


@numba.njit(cache=True)
def copy_rows(source: np.ndarray, array: np.ndarray, rows: np.ndarray) -> None:
    """Copy row ``i`` of ``source`` into the start of row ``rows[i]`` of ``array``."""
    width = source.shape[1]
    for i in range(rows.shape[0]):
        array[rows[i], :width] = source[i]
