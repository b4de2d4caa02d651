"""Regenerate the golden games in tests/data/golden/ (checked by tests/test_golden.py).

    .venv/bin/python -m tests.make_golden           # rewrite the files
    .venv/bin/python -m tests.make_golden --check   # exit 1 if a file is stale

Each game is dealt from a seed and played to the end by four agents named by agent
specs (``greedy``, ``random:<seed>``, ``heuristic``, ``search:<seed>``; see
:mod:`big2.players.specs`); search seats use the small budget in ``SEARCH``. A file holds
the setup, the expected result (winner, scores, number of log entries) and the whole
game as a GameLog dict (written with indent=1), which names the players and the seed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from big2.game import Game
from big2.players import Agent, load_agent, play
from big2.rules import get

DIR = Path(__file__).parent / "data" / "golden"

# name, rules preset, deal seed, the agent spec of each seat
GAMES = [
    ("standard-1", "standard", 101, ("greedy", "random:1", "greedy", "random:2")),
    ("standard-2", "standard", 202, ("random:3", "greedy", "random:4", "greedy")),
    ("charlesworth-1", "charlesworth", 303, ("greedy", "random:5", "random:6", "greedy")),
    ("charlesworth-2", "charlesworth", 404, ("random:7", "greedy", "greedy", "random:8")),
    ("standard-heuristic", "standard", 505, ("heuristic", "greedy", "heuristic", "random:9")),
    (
        "charlesworth-heuristic",
        "charlesworth",
        606,
        ("random:10", "heuristic", "greedy", "heuristic"),
    ),
    ("standard-search", "standard", 707, ("search:1", "heuristic", "greedy", "heuristic")),
    # the other presets (docs/rules.md): one game each, heuristic beside baselines
    ("taiwan-heuristic", "taiwan", 808, ("heuristic", "random:11", "greedy", "heuristic")),
    ("pusoy-dos-heuristic", "pusoy-dos", 909, ("greedy", "heuristic", "random:12", "heuristic")),
    ("bombs-heuristic", "bombs", 1010, ("heuristic", "greedy", "heuristic", "random:13")),
    ("western-heuristic", "western", 1111, ("random:14", "heuristic", "heuristic", "greedy")),
    ("three-player-heuristic", "three-player", 1212, ("heuristic", "greedy", "random:15")),
    ("two-player-heuristic", "two-player", 1313, ("heuristic", "greedy")),
]
SEARCH = {"determinizations": 4, "max_determinizations": 8, "candidates": 3}


def make_agent(spec: str, rules: str = "standard") -> Agent:
    """The agent of an agent spec; search seats get the small :data:`SEARCH` budget."""
    options = SEARCH if spec.split(":")[0] == "search" else {}
    return load_agent(spec, get(rules), **options)


def play_golden(rules: str, deal_seed: int, agents: tuple[str, ...]) -> Game:
    """The game these agents play on this deal, to the end; its log names the players
    and the seed (no date, so that the files stay the same)."""
    game = Game(get(rules), seed=deal_seed)
    game.log.sign(agents, deal_seed, date=None)
    return play(game, [make_agent(a, rules) for a in agents])


def record(name: str, rules: str, deal_seed: int, agents: tuple[str, ...]) -> dict[str, Any]:
    game = play_golden(rules, deal_seed, agents)
    return {
        "name": name,
        "rules": rules,
        "deal_seed": deal_seed,
        "agents": list(agents),
        "expected": {
            "winner": game.winner,
            "scores": list(game.scores()),
            "moves": len(game.log.moves),
        },
        "log": game.log.to_dict(),
    }


def render(spec: tuple[str, str, int, tuple[str, ...]]) -> str:
    """The text of one golden file."""
    return json.dumps(record(*spec), indent=1, ensure_ascii=False) + "\n"


def path_of(name: str) -> Path:
    return DIR / f"{name}.json"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    DIR.mkdir(parents=True, exist_ok=True)
    for spec in GAMES:
        path, text = path_of(spec[0]), render(spec)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(path.name)
        if not check:
            path.write_text(text, encoding="utf-8")
    verb = "stale" if check else "written"
    print(f"{len(stale)} of {len(GAMES)} golden files {verb}: {', '.join(stale) or '-'}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
