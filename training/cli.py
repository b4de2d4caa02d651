"""What the training commands share on the command line.

>>> parser = command("python -m training.example", '''Does one thing.
...
... More about it.
...
... >>> 1 + 1
... 2
... ''')
>>> parser.description
'Does one thing.\\n\\nMore about it.'
"""

from __future__ import annotations

import argparse


def command(prog: str, doc: str | None) -> argparse.ArgumentParser:
    """A parser for ``prog`` whose help is its module docstring ``doc`` as written.

    The docstring's paragraphs keep their line breaks, and its examples (from the first
    ``>>>`` on, which are doctests, not help) are left out.
    """
    text = (doc or "").split("\n>>>", 1)[0].strip()
    return argparse.ArgumentParser(
        prog=prog, description=text, formatter_class=argparse.RawDescriptionHelpFormatter
    )
