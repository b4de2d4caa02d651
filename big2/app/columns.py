"""A list laid out in columns and pages that fit a terminal, read down each column as
``ls`` lays out file names.

>>> pages([f"{i}." for i in range(1, 8)], width=10, rows=2)
[['1.  3.  5.', '2.  4.  6.'], ['7.']]
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

GAP = 2  # spaces between two columns
COLOUR = re.compile(r"\033\[[0-9;]*m")  # the codes terminal.cards_text colours with


def shown_width(text: str) -> int:
    """The columns ``text`` takes on a terminal: its length without colour codes.

    >>> shown_width("\\033[31m3♦\\033[0m 3♠")
    5
    """
    return len(COLOUR.sub("", text))


def pages(items: Sequence[str], width: int, rows: int) -> list[list[str]]:
    """``items`` in pages of at most ``rows`` lines, as many columns as ``width`` holds
    (one at least); a page's lines. No items: one empty page."""
    if rows < 1:
        raise ValueError(f"a page needs at least one row, not {rows}")
    if not items:
        return [[]]
    cell = max(shown_width(t) for t in items) + GAP
    size = max(1, (width + GAP) // cell) * rows
    return [_page(items[i : i + size], rows, cell) for i in range(0, len(items), size)]


def _page(items: Sequence[str], rows: int, cell: int) -> list[str]:
    """One page, filled down its columns; a short page takes fewer rows."""
    columns = math.ceil(len(items) / rows)
    rows = math.ceil(len(items) / columns)
    lines = []
    for row in range(rows):
        cells = items[row::rows]
        padded = [t + " " * (cell - shown_width(t)) for t in cells[:-1]]
        lines.append("".join(padded) + cells[-1])
    return lines
