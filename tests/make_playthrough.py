"""Regenerate the golden playthroughs in tests/data/ (checked by tests/test_playthrough.py).

    .venv/bin/python tests/make_playthrough.py           # rewrite the files
    .venv/bin/python tests/make_playthrough.py --check   # exit 1 if a file is stale

OpenSpiel-style: one seeded game per observer, and one for ``raw_env.state()``, through
``raw_env``, where the acting agent always takes its lowest legal action index. Each step
lists the acting agent and seat, its hand, the table, every legal action
(``index: cards (ranking)``), the chosen action and the nonzero entries of each piece of
the acting agent's observation, or of the state (flat indices within the piece;
``index=value`` when the value is not 1). A state playthrough also records the state
after the last move. The rewards close the file.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np

from big2.cards import format_cards
from big2.hand_ranking import HandRanking
from envs.big2_env import raw_env
from observers import Observer

DIR = Path(__file__).parent / "data"


class Spec(NamedTuple):
    """One golden playthrough: its name (the file's), the env's arguments and the seed."""

    name: str
    rules: str
    observer: str
    actions: str
    seed: int
    state: bool = False  # record raw_env.state() instead of the observations


# one per observer and one for the state (the first two keep their historical names)
PLAYTHROUGHS = [
    Spec("standard", "standard", "simple", "catalog", 0),
    Spec("charlesworth", "charlesworth", "charlesworth", "hand", 0),
    Spec("card_counting", "standard", "card_counting", "hand", 38),
    Spec("history", "charlesworth", "history", "catalog", 38),
    Spec("planes", "charlesworth", "planes", "hand", 38),
    Spec("oracle", "standard", "oracle", "catalog", 38),
    Spec("state", "charlesworth", "simple", "catalog", 38, state=True),
]


def path_of(name: str, directory: Path = DIR) -> Path:
    return directory / f"playthrough_{name}.txt"


def describe(move: HandRanking) -> str:
    return "pass" if not move else f"{format_cards(move.cards)} ({move.ranking.label})"


def nonzero(piece: np.ndarray) -> str:
    flat = piece.ravel()
    return " ".join(
        str(i) if flat[i] == 1 else f"{i}={float(flat[i]):.6g}" for i in np.flatnonzero(flat)
    )


def pieces(observer: Observer, flat: np.ndarray) -> list[str]:
    """A line per piece of ``flat`` with a nonzero entry."""
    parts = observer.split(flat).items()
    return [f"    {name}: {nonzero(piece)}" for name, piece in parts if piece.any()]


def header(spec: Spec, n_actions: int, size: int) -> list[str]:
    what, sized = (
        ("state()", "state") if spec.state else (f"observer={spec.observer}", "observation")
    )
    return [
        f"# Big Two playthrough: rules={spec.rules} {what} actions={spec.actions} seed={spec.seed}",
        "# regenerate with: .venv/bin/python tests/make_playthrough.py",
        f"actions: {n_actions}; {sized} size: {size}",
    ]


def playthrough(spec: Spec) -> str:
    """The text of one playthrough (deterministic for its spec)."""
    aec = raw_env(rules=spec.rules, observer=spec.observer, actions=spec.actions)
    aec.reset(seed=spec.seed)
    game, codec = aec.game, aec.codec
    recorded = aec.state_observer if spec.state else aec.observer
    lines = header(spec, codec.n, recorded.size)
    lines += [f"deal seat {s}: {format_cards(h)}" for s, h in enumerate(game.log.deal)]
    lines += [f"automatic: seat {e.seat} plays {describe(e.move)}" for e in game.log.moves]
    step = 0
    while not game.is_over:
        agent, seat = aec.agent_selection, game.turn
        hand = game.hand(seat)
        obs = aec.observe(agent)
        legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
        table = game.table
        table_text = (
            "(empty)"
            if table is None
            else f"{describe(table)} by seat {game.table_seat}, passes {game.passes}"
        )
        lines += [
            "",
            f"step {step}: {agent} (seat {seat})",
            f"  hand: {format_cards(hand)}",
            f"  table: {table_text}",
            f"  legal actions ({len(legal)}):",
        ]
        lines += [f"    {a}: {describe(codec.decode(a, hand))}" for a in legal]
        lines.append(f"  action: {legal[0]}")
        if spec.state:
            lines += ["  state:", *pieces(recorded, aec.state())]
        else:
            lines += ["  observation:", *pieces(recorded, obs["observation"])]
        aec.step(legal[0])
        step += 1
    if spec.state:
        lines += ["", "final state:", *pieces(recorded, aec.state())]
    lines += [
        "",
        f"winner: {aec.agent_selection} (seat {game.winner}) after {step} steps",
        "rewards: " + ", ".join(f"{a}={aec.rewards[a]:g}" for a in aec.possible_agents),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, directory: Path = DIR) -> int:
    argv = sys.argv[1:] if argv is None else argv
    check = "--check" in argv
    stale = []
    for spec in PLAYTHROUGHS:
        path = path_of(spec.name, directory)
        text = playthrough(spec)
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        elif not path.exists() or path.read_text(encoding="utf-8") != text:
            directory.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"stale playthroughs: {', '.join(stale)}; run .venv/bin/python "
              "tests/make_playthrough.py")  # fmt: skip
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
