"""The ``big2`` command line.

- ``big2 play [--opponents A [B C]] [--seed N] [--log-dir DIR]``: play in the terminal.
- ``big2 arena --agents heuristic greedy random random --deals 1000 --seed 0``: evaluate.
- ``big2 league --agents random heuristic trained --deals 100 --out DIR``: every pair head
  to head, rated with OpenSkill (:mod:`big2.evaluation.league`); resumable.
- ``big2 agents``: the shipped agents, current and past (``NAME@YYYY-MM-DD``).
- ``big2 replay FILE [--all]``: step through a saved game with every hand visible;
  ``--html`` writes it as one self-contained web page instead.
- ``big2 serve [--opponents A [B C]] [--hint A] [--rules R] [--port P]``: play and replay
  in a browser
  (loopback only unless ``--allow-network``; see :mod:`big2.app.server`, Safety).
- ``big2 demo [--seed N]``: print one seeded game between baseline players.
- ``big2 --version``: the installed version.

``play`` and ``serve`` take their agents alike: ``--opponents`` with one agent spec for
every other seat or one spec each (three of four; ``--agents``, ``serve``'s former name,
is an alias). Both seat the rules' players (two to four).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import replace
from functools import partial
from importlib.metadata import PackageNotFoundError, entry_points, version
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
    agents = agents[: rules.players]
    game = Game(rules, seed=rng)
    names = ["greedy", "random", "greedy", "random"][: rules.players]
    seats = ", ".join(f"{s} {n}" for s, n in enumerate(names))
    lines = [f"Big Two ({rules.name} rules), seed {seed}. Seats: {seats}"]
    suits = rules.suit_order
    lines += [f"  seat {s} holds {format_cards(h, suits=suits)}" for s, h in enumerate(game.hands)]
    play(game, agents)
    for number, entry in enumerate(game.log.moves, 1):
        label = entry.move.ranking.label if entry.move else ""
        lines.append(f"{number:>4}. seat {entry.seat}: {entry.move!s:<16} {label}".rstrip())
    lines.append(f"seat {game.winner} wins; scores {list(game.scores())}")
    return "\n".join(lines)


def _arena(args: argparse.Namespace) -> None:
    from big2.evaluation import evaluate

    rules = R.get(args.rules)
    if len(args.agents) != rules.players:
        raise ValueError(
            f"--agents names {len(args.agents)} agents; the {rules.name} rules seat "
            f"{rules.players}, one agent each"
        )
    agents: list[Agent | str] = [load_agent(a, rules) for a in args.agents]
    log_dir = Path(args.log_dir) if args.log_dir else None  # checked before any game
    given = (("--json", args.json), ("--csv", args.csv))
    outputs = {flag: Path(path) for flag, path in given if path}
    for flag, path in outputs.items():  # before any game, not after the last
        _check_output(flag, path)
    play_deals = partial(evaluate, agents, args.deals, args.seed, rules, progress=args.progress)
    with backends.from_arguments(args) as backend:
        result = play_deals(backend=backend, log_dir=log_dir)
    print(result.table())
    texts = {"--json": result.to_json, "--csv": result.to_csv}
    for flag, path in outputs.items():
        path.write_text(texts[flag](), encoding="utf-8")


def _league(args: argparse.Namespace) -> None:
    from big2.evaluation.league import run_league

    progress = sys.stderr.isatty() and not args.no_progress
    with backends.from_arguments(args) as backend:
        play = partial(run_league, args.agents, R.get(args.rules), args.deals, args.seed)
        result = play(Path(args.out), backend=backend, progress=progress)
    print(result.markdown(), end="")
    print(f"\nbig2 league: league.json, leaderboard.md and league.png are in {args.out}")


def _agents(args: argparse.Namespace) -> None:
    from big2.players.specs import catalog

    rows = [("spec", "rules", "shipped", "where")]
    rows += [(a["spec"], a["rules"], a["shipped"], a["where"]) for a in catalog()]
    widths = [max(len(row[k]) for row in rows) for k in range(3)]
    for row in rows:
        print("  ".join(f"{cell:<{w}}" for cell, w in zip(row, widths, strict=False)), row[3])
    if len(rows) == 1:
        print("(no agent loader lists shipped agents: is big2's training package installed?)")


def _check_output(flag: str, path: Path) -> None:
    """Refuse an output file that could not be written, naming why (its folder is made)."""
    from big2.log import unwritable

    if path.is_dir():
        raise ValueError(f"{flag} {path} is a folder; give a file name")
    if problem := unwritable(path.parent):
        raise ValueError(f"cannot write {flag} {path} ({problem}); choose another file")


def _play(args: argparse.Namespace) -> None:
    from big2.app.terminal import Stopped, stop_on_signals

    try:
        with stop_on_signals(), installed_guards():
            _play_games(args)
    except Stopped as stop:  # the game was saved; say where if the terminal is still there
        where = stop.saved or Path(args.log_dir)
        with suppress(OSError):
            print(f"\nbig2 play: stopped by {stop}; the game is saved in {where}", file=sys.stderr)
        sys.exit(128 + stop.signum)


def _play_games(args: argparse.Namespace) -> None:
    """Games in the terminal, one after the other while the person wants another."""
    from big2.app.terminal import TerminalGame, read_line

    rules = R.get(args.rules)
    if args.seat >= rules.players:
        raise ValueError(f"--seat {args.seat}: the {rules.name} rules seat 0..{rules.players - 1}")
    opponents, names = _opponents(args.opponents, rules)
    color = False if args.no_color else None
    session = TerminalGame(opponents, rules, args.seat, args.log_dir, color, names=names)
    seed = random.SystemRandom().randrange(2**31) if args.seed is None else args.seed
    while True:
        game = session.play(seed=seed)  # a number, so that its log can name it
        seed += 1
        try:
            again = game.is_over and read_line("Play again? [y/N] ").strip().lower() == "y"
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
    except UnicodeDecodeError:
        raise SystemExit(f"big2 replay: {args.file} is not a game log (not text)") from None
    if args.html:
        from big2.app.page import replay_html

        sys.stdout.write(replay_html(log))
        return
    replay(log, step=not args.all, color=False if args.no_color else None)


def _opponents(text: Sequence[str], rules: R.Rules) -> tuple[list[Agent], list[str]]:
    """The agents of the other seats (three of four) and their names from specs: one spec
    for all of them (seeded ``s``: seeds s, s + 1, ...), or one each."""
    specs = [AgentSpec.parse(t) for t in text]
    n = rules.players - 1
    if len(specs) == 1:
        seed = specs[0].seed
        specs = [specs[0] if seed is None else replace(specs[0], seed=seed + i) for i in range(n)]
    if len(specs) != n:
        raise ValueError(
            f"--opponents takes one agent spec or {n} (one per other seat of the {rules.name} "
            f"rules), not {len(specs)}"
        )
    return [load_agent(s, rules) for s in specs], [str(s) for s in specs]


def _serve(args: argparse.Namespace) -> None:
    from big2.app.addresses import exposure_problem
    from big2.app.server import Server
    from big2.app.table import Table
    from big2.log import unwritable

    if problem := exposure_problem(args.host, args.allow_network):
        raise ValueError(problem)
    rules = R.get(args.rules)
    if args.seat >= rules.players:
        raise ValueError(f"--seat {args.seat}: the {rules.name} rules seat 0..{rules.players - 1}")
    agents, names = _opponents(args.opponents, rules)
    log_dir = Path(args.log_dir)
    if problem := unwritable(log_dir):
        raise ValueError(
            f"cannot save game logs in {log_dir} ({problem}); choose another --log-dir"
        )
    hint = args.hint or names[0]  # an agent of its own: hints change nothing in the game
    table = Table(
        agents,
        names,
        rules,
        args.seat,
        log_dir,
        args.keep_unfinished,
        hint=load_agent(hint, rules),
        hint_name=hint,
    )
    try:
        server = Server(
            (args.host, args.port),
            table,
            log_dir,
            allow_hosts=args.allow_host,
            allow_network=args.allow_network,
        )
    except OSError as e:
        raise ValueError(
            f"cannot listen on {args.host}:{args.port} ({e.strerror or e}); "
            f"choose another --host or --port"
        ) from None
    print(f"big2 serve: open {server.url} (replays: {server.url}replay); Ctrl-C stops")
    print(f"game logs go to {log_dir.resolve()}")
    if args.allow_network:
        print(
            f"big2 serve: --allow-network: anyone who can reach {server.url} can play, read "
            f"every saved game in {log_dir.resolve()} and start games that write log files "
            f"there; there is no password and no encryption",
            file=sys.stderr,
        )
    with server:
        server.serve_forever()


def _port(text: str) -> int:
    """A ``--port``: a whole number 0..65535 (0: any free port)."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a whole number 0..65535, not {text!r}")
    return port


def _count(text: str) -> int:
    """A number of files: a whole number, 0 or more."""
    try:
        count = int(text)
    except ValueError:
        count = -1
    if count < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number, 0 or more, not {text!r}")
    return count


def rules_arg(text: str) -> R.Rules:
    """``--rules``: a preset's name or a rules file (``.toml``); ArgumentTypeError says why not.

    >>> rules_arg("taiwan").suit_order
    'CDHS'
    """
    try:
        return R.get(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _add_rules(command: argparse.ArgumentParser) -> None:
    presets = ", ".join(sorted(R.PRESETS))
    command.add_argument(
        "--rules",
        type=rules_arg,
        default=R.STANDARD,
        metavar="NAME|FILE.toml",
        help=f"a preset ({presets}) or a rules file (docs/rules.md)",
    )


def parser() -> argparse.ArgumentParser:
    """The ``big2`` command's parser: one subcommand per way to play or watch."""
    top = argparse.ArgumentParser(prog="big2", description="Big Two for people and agents")
    top.add_argument("--version", action="version", version=f"%(prog)s {installed_version()}")
    commands = top.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="play against agents in the terminal")
    _add_opponents(play, "heuristic")
    play.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the first deal (the next games: SEED+1, SEED+2, ...); default random",
    )
    play.add_argument("--seat", type=int, default=0, choices=range(4))
    play.add_argument("--log-dir", default="big2_logs", help="where game logs are saved")
    _add_rules(play)
    play.add_argument("--no-color", action="store_true")

    arena = commands.add_parser("arena", help="evaluate four agents on duplicate deals")
    arena.add_argument(
        "--agents", nargs="+", required=True, metavar="AGENT", help="one per seat of the rules"
    )
    arena.add_argument("--deals", type=int, default=1000)
    arena.add_argument("--seed", type=int, default=0)
    _add_rules(arena)
    arena.add_argument("--json", help="also write the results as JSON to this file")
    arena.add_argument("--csv", help="also write the results as CSV to this file")
    arena.add_argument("--progress", action="store_true", help="show a progress bar")
    arena.add_argument("--log-dir", help="save every game's log in this folder (for replays)")
    backends.add_arguments(arena)

    league = commands.add_parser(
        "league",
        help="rate agents against agents: every pair head to head on duplicate deals",
        description="Every agent in one seat against three of every other, both ways round, "
        "on the same duplicate deals; rated with OpenSkill (docs/agents.md, The league). "
        "Run again with the same settings and --out to continue an interrupted league, or "
        "with agents added after its own to extend it (only their matches are played).",
    )
    league.add_argument(
        "--agents", nargs="+", required=True, metavar="AGENT", help="two or more agent specs"
    )
    league.add_argument("--deals", type=int, default=100, help="duplicate deals a match")
    league.add_argument("--seed", type=int, default=0, help="seed of the deals")
    _add_rules(league)
    league.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="where the matches, league.json, leaderboard.md and league.png go",
    )
    league.add_argument("--no-progress", action="store_true", help="no progress bar")
    backends.add_arguments(league)

    commands.add_parser("agents", help="list the shipped agents, current and past")

    replay = commands.add_parser("replay", help="step through a saved game, all hands shown")
    replay.add_argument("file")
    replay.add_argument("--all", action="store_true", help="print to the end without pausing")
    replay.add_argument("--no-color", action="store_true")
    replay.add_argument(
        "--html", action="store_true", help="write it as one self-contained web page to stdout"
    )

    serve = commands.add_parser(
        "serve",
        help="play three agents and replay games in a browser",
        description="Play three agents and replay saved games in a browser, on this machine. "
        "The server answers only requests addressed to 127.0.0.1, localhost or [::1] at its "
        "port (and --allow-host names), only from its own pages, and listens on loopback "
        "only unless --allow-network is given (docs/browser.md, Safety).",
    )
    _add_opponents(serve, "trained")
    _add_rules(serve)
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on: loopback (127.0.0.1, the default, ::1, localhost); "
        "any other address needs --allow-network",
    )
    serve.add_argument("--port", type=_port, default=8765, help="0..65535 (0: any free port)")
    serve.add_argument("--seat", type=int, default=0, choices=range(4), help="your seat")
    serve.add_argument(
        "--hint",
        metavar="AGENT",
        help="the agent spec whose top candidates the page's Hint shows for your hand "
        "(default: the first of --opponents)",
    )
    serve.add_argument("--log-dir", default="big2_logs", help="where game logs are saved")
    serve.add_argument(
        "--keep-unfinished",
        type=_count,
        default=20,
        metavar="N",
        help="keep the logs of the N latest games this server left unfinished (a new game "
        "started before the end) and delete older ones (default 20); logs of finished games "
        "and files it did not write are never deleted",
    )
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME[:PORT]",
        help="also answer requests addressed to NAME (at --port unless given); repeatable. "
        "Without it, requests naming any other host are refused, so that other web sites "
        "(DNS rebinding) cannot reach the server",
    )
    serve.add_argument(
        "--allow-network",
        action="store_true",
        help="allow a --host that other machines reach (0.0.0.0, a LAN address): anyone who "
        "can reach it can then play, read every saved game in --log-dir and start games "
        "that write files there; no password, no encryption",
    )

    demo_cmd = commands.add_parser("demo", help="print one seeded game between baseline players")
    demo_cmd.add_argument("--seed", type=int, default=0)
    _add_rules(demo_cmd)
    return top


def _add_opponents(command: argparse.ArgumentParser, default: str) -> None:
    """The ``--opponents`` of ``play`` and ``serve`` (``--agents``: an alias): see
    :func:`_opponents`."""
    command.add_argument(
        "--opponents",
        "--agents",
        dest="opponents",
        nargs="+",
        default=[default],
        metavar="AGENT",
        help="one agent spec for every other seat (AGENT:S seeds them S, S+1, ...), or one each: "
        "random, greedy, heuristic, search, trained or a .pt file, a policy with +search "
        f"(docs/agents.md); default {default}. --agents is another name for it",
    )


def installed_version() -> str:
    """The installed ``big2``'s version (from its metadata), or a note that it is not
    installed (run from a source tree)."""
    try:
        return version("big2")
    except PackageNotFoundError:
        return "(not installed: no version)"


@contextmanager
def installed_guards() -> Iterator[None]:
    """Inside every context manager that installed packages register under
    ``big2.guards``, for a command to run in.

    The game knows nothing of what plugins bring with them; ``envs`` registers
    ``signals_after_compiling``, so that a Ctrl-C landing while numba compiles a kernel
    (the first ``+search`` decision after an install, say) waits for the compilation to
    end instead of crashing the process. ``arena``, ``play`` and ``serve`` run inside them;
    ``demo`` and ``replay``, which run no agent of a plugin's, start without importing
    them.
    """
    with ExitStack() as guards:
        for entry in entry_points(group="big2.guards"):
            guards.enter_context(entry.load()())
        yield


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    try:
        if args.command == "demo":
            print(demo(args.seed, R.get(args.rules)))
        elif args.command == "replay":
            _replay(args)
        elif args.command == "agents":
            _agents(args)
        elif args.command == "play":
            _play(args)  # its own signal handlers first, then the guards (see _play)
        else:  # the commands that run agents, whose first moves may compile kernels
            with installed_guards():
                {"arena": _arena, "league": _league, "serve": _serve}[args.command](args)
    except (ValueError, ImportError) as e:  # ImportError: a backend's missing extra
        raise SystemExit(f"big2 {args.command}: {e}") from None
    except (KeyboardInterrupt, EOFError):
        print()
        sys.exit(130)


if __name__ == "__main__":
    main()
