"""The ``big2`` command line.

- ``big2 play [--opponents heuristic] [--seed N] [--log-dir DIR]``: play in the terminal.
- ``big2 arena --agents heuristic greedy random random --deals 1000 --seed 0``: evaluate.
- ``big2 replay FILE [--all]``: step through a saved game with every hand visible.
- ``big2 demo [--seed N]``: print one seeded game between baseline players.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from big2 import rules as R
from big2.cards import format_cards
from big2.evaluation import backends
from big2.game import Game
from big2.log import GameLog
from big2.players import Agent, AgentSpec, GreedyAgent, RandomAgent, load_agent, play


def demo(seed: int, rules: R.Rules) -> str:
    """The text of one seeded game between Greedy, Random, Greedy and Random seats.

    >>> print(demo(0, R.STANDARD).splitlines()[0])
    Big Two (standard rules), seed 0. Seats: 0 greedy, 1 random, 2 greedy, 3 random
    """
    rng = random.Random(seed)
    agents: list[Agent] = [GreedyAgent(), RandomAgent(rng), GreedyAgent(), RandomAgent(rng)]
    game = Game(rules, seed=rng)
    names = ["greedy", "random", "greedy", "random"]
    seats = ", ".join(f"{s} {n}" for s, n in enumerate(names))
    lines = [f"Big Two ({rules.name} rules), seed {seed}. Seats: {seats}"]
    lines += [f"  seat {s} holds {format_cards(h)}" for s, h in enumerate(game.hands)]
    play(game, agents)
    for number, entry in enumerate(game.log.moves, 1):
        label = entry.move.ranking.label if entry.move else ""
        lines.append(f"{number:>4}. seat {entry.seat}: {entry.move!s:<16} {label}".rstrip())
    lines.append(f"seat {game.winner} wins; scores {list(game.scores())}")
    return "\n".join(lines)


def _arena(args: argparse.Namespace) -> None:
    from big2.evaluation import evaluate

    rules = R.get(args.rules)
    agents: list[Agent | str] = [load_agent(a, rules) for a in args.agents]
    with backends.from_arguments(args) as backend:
        result = evaluate(agents, args.deals, args.seed, rules, progress=args.progress,
                          backend=backend)  # fmt: skip
    print(result.table())
    if args.json:
        Path(args.json).write_text(result.to_json(), encoding="utf-8")
    if args.csv:
        Path(args.csv).write_text(result.to_csv(), encoding="utf-8")


def _play(args: argparse.Namespace) -> None:
    from big2.app.terminal import TerminalGame

    rules = R.get(args.rules)
    spec = AgentSpec.parse(args.opponents)
    if spec.seed is not None:  # three seeded opponents get seeds s, s + 1, s + 2
        specs = [replace(spec, seed=spec.seed + i) for i in range(3)]
    else:
        specs = [spec] * 3
    opponents = [load_agent(s, rules) for s in specs]
    color = False if args.no_color else None
    session = TerminalGame(opponents, rules, args.seat, args.log_dir, color)
    rng = random.Random(args.seed)
    while True:
        game = session.play(seed=rng)
        try:
            again = game.is_over and input("Play again? [y/N] ").strip().lower() == "y"
        except EOFError:
            again = False  # end of input means no
        if not again:
            break


def _replay(args: argparse.Namespace) -> None:
    from big2.app.terminal import replay

    try:
        log = GameLog.from_json(Path(args.file).read_text(encoding="utf-8"))
    except OSError as e:
        raise SystemExit(f"big2 replay: cannot read {args.file}: {e.strerror}") from None
    replay(log, step=not args.all, color=False if args.no_color else None)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="big2", description="Big Two for people and agents")
    commands = top.add_subparsers(dest="command", required=True)
    rules = sorted(R.PRESETS)

    play = commands.add_parser("play", help="play against three agents in the terminal")
    play.add_argument(
        "--opponents",
        default="heuristic",
        help="an agent spec: random, greedy, heuristic, search, trained or a .pt file; "
        "a policy with +search; :SEED to seed (see docs/agents.md)",
    )
    play.add_argument("--seed", type=int, default=None, help="seed of the deals")
    play.add_argument("--seat", type=int, default=0, choices=range(4))
    play.add_argument("--log-dir", default="big2_logs", help="where game logs are saved")
    play.add_argument("--rules", default="standard", choices=rules)
    play.add_argument("--no-color", action="store_true")

    arena = commands.add_parser("arena", help="evaluate four agents on duplicate deals")
    arena.add_argument("--agents", nargs=4, required=True, metavar="AGENT")
    arena.add_argument("--deals", type=int, default=1000)
    arena.add_argument("--seed", type=int, default=0)
    arena.add_argument("--rules", default="standard", choices=rules)
    arena.add_argument("--json", help="also write the results as JSON to this file")
    arena.add_argument("--csv", help="also write the results as CSV to this file")
    arena.add_argument("--progress", action="store_true", help="show a progress bar")
    backends.add_arguments(arena)

    replay = commands.add_parser("replay", help="step through a saved game, all hands shown")
    replay.add_argument("file")
    replay.add_argument("--all", action="store_true", help="print to the end without pausing")
    replay.add_argument("--no-color", action="store_true")

    demo_cmd = commands.add_parser("demo", help="print one seeded game between baseline players")
    demo_cmd.add_argument("--seed", type=int, default=0)
    demo_cmd.add_argument("--rules", default="standard", choices=rules)
    return top


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    try:
        if args.command == "demo":
            print(demo(args.seed, R.get(args.rules)))
        elif args.command == "arena":
            _arena(args)
        elif args.command == "play":
            _play(args)
        elif args.command == "replay":
            _replay(args)
    except (ValueError, ImportError) as e:  # ImportError: a backend's missing extra
        raise SystemExit(f"big2 {args.command}: {e}") from None
    except (KeyboardInterrupt, EOFError):
        print()
        sys.exit(130)


if __name__ == "__main__":
    main()
