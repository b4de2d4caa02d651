"""Regenerate the golden playthroughs in tests/data/ (checked by tests/test_playthrough.py).

    .venv/bin/python tests/make_playthrough.py           # rewrite the files
    .venv/bin/python tests/make_playthrough.py --check   # exit 1 if a file is stale

OpenSpiel-style: one seeded game per rules preset through ``raw_env``, where the acting
agent always takes its lowest legal action index. Each step lists the acting agent and
seat, its hand, the table, every legal action (``index: cards (ranking)``), the chosen
action and the nonzero entries of each observation piece (flat indices within the piece;
``index=value`` when the value is not 1). The rewards close the file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from big2.cards import format_cards
from big2.hand_ranking import HandRanking
from envs.big2_env import raw_env

DIR = Path(__file__).parent / "data"

# rules preset, observer, action codec, reset seed
PLAYTHROUGHS = [
    ("standard", "simple", "catalog", 0),
    ("charlesworth", "charlesworth", "hand", 0),
]


def path_of(rules: str, directory: Path = DIR) -> Path:
    return directory / f"playthrough_{rules}.txt"


def describe(move: HandRanking) -> str:
    return "pass" if not move else f"{format_cards(move.cards)} ({move.ranking.label})"


def nonzero(piece: np.ndarray) -> str:
    flat = piece.ravel()
    return " ".join(
        str(i) if flat[i] == 1 else f"{i}={float(flat[i]):.6g}" for i in np.flatnonzero(flat)
    )


def playthrough(rules: str, observer: str, actions: str, seed: int) -> str:
    """The text of one playthrough (deterministic for its arguments)."""
    aec = raw_env(rules=rules, observer=observer, actions=actions)
    aec.reset(seed=seed)
    game, codec, obs_encoder = aec.game, aec.codec, aec.observer
    lines = [
        f"# Big Two playthrough: rules={rules} observer={observer} actions={actions} seed={seed}",
        "# regenerate with: .venv/bin/python tests/make_playthrough.py",
        f"actions: {codec.n}; observation size: {obs_encoder.size}",
    ]
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
        lines.append("  observation:")
        for name, piece in obs_encoder.split(obs["observation"]).items():
            if piece.any():
                lines.append(f"    {name}: {nonzero(piece)}")
        aec.step(legal[0])
        step += 1
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
        path = path_of(spec[0], directory)
        text = playthrough(*spec)
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        else:
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
