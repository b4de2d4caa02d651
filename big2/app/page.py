"""The replay page as one self-contained file (``big2 replay --html LOG``).

>>> script_json({"rules": "<!--<script>"})[:20]
'{"rules": "\\\\u003c!--'
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

from big2.app.table import replay_data
from big2.log import GameLog

STATIC = resources.files("big2.app") / "static"  # the page's files, shipped in the package
SCRIPT_UNSAFE = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def script_json(data: Any) -> str:
    """``data`` as JSON that is safe inside an HTML ``<script>``: no ``<``, ``>``, ``&``
    or line separators, so no text in it can end or bend the script.

    >>> script_json({"rules": "<!--<script>"})[:20]
    '{"rules": "\\\\u003c!--'
    """
    text = json.dumps(data)
    return re.sub("[<>&\u2028\u2029]", lambda m: SCRIPT_UNSAFE[m.group()], text)


def replay_html(log: GameLog) -> str:
    """The replay page with ``log``'s frames inside: one file that needs no server and
    loads nothing from the network. A log that cannot be replayed raises ValueError."""
    data = replay_data(log)
    page = (STATIC / "replay.html").read_text(encoding="utf-8")
    css = (STATIC / "big2.css").read_text(encoding="utf-8")
    scripts = "".join((STATIC / n).read_text(encoding="utf-8") for n in ("cards.js", "replay.js"))
    page = page.replace('<link rel="stylesheet" href="/static/big2.css">', f"<style>{css}</style>")
    page = re.sub(r'<script src="/static/[\w.]+"></script>\s*', "", page)
    embedded = f"<script>window.BIG2_REPLAY = {script_json(data)};</script>\n"
    tail = f"{embedded}<script>{scripts}</script>\n"
    return page.replace("</body>", tail + "</body>")
