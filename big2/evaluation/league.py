"""A league: every pair of agents head to head on duplicate deals, rated with OpenSkill.

For every ordered pair of agents (A, B) the league plays one **match**: A in one seat
against three copies of B, on ``deals`` duplicate deals of ``seed``, each deal four times
with the seats rotated (the arena's games: :func:`big2.evaluation.arena.play_deal`, so a
match's figures are those of ``big2 arena --agents A B B B`` on the same seed). Both
ways round, n agents play n(n - 1) matches.

The games are rated with OpenSkill (:mod:`big2.evaluation.ratings`) in a fixed order,
so the same settings give the same ratings: deal by deal; within a deal, match by match
in the order of :func:`matches` (A's index, then B's, in the order the agents are
given); within a match, rotation by rotation. Every agent therefore meets every other
from the first deal on.

With ``out`` (``big2 league --out DIR``) the league is resumable: ``DIR/settings.json``
holds its settings and each match's games are written whole to
``DIR/matches/I-J.json`` as the match finishes; run again with the same settings, it
plays only the matches missing and ends with the same ``league.json`` as a league never
interrupted. Run with agents added after the folder's own (the same rules, deals and
seed), it **extends** that league: it plays only the new agents' matches and ends with
the ``league.json`` of a league of all of them played from the start. A folder holding a
league of any other settings is refused, naming the difference. At the end it writes
``DIR/league.json``, ``DIR/leaderboard.md`` and ``DIR/league.png``
(:mod:`big2.evaluation.leaderboard`).

>>> result = run_league(["heuristic", "random"], deals=2, seed=0)
>>> [a.spec for a in result.agents]
['heuristic', 'random']
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields, replace
from functools import partial
from pathlib import Path
from typing import Any

from big2.evaluation.arena import play_deal
from big2.evaluation.backends import Backend, TaskFailed
from big2.evaluation.leaderboard import Games, LeagueResult, Match, summarise_league
from big2.log import unwritable
from big2.players import load_agent
from big2.rules import STANDARD, Rules

SETTINGS = "settings.json"


@dataclass(frozen=True)
class Settings:
    """What a league's results depend on (not where or how fast it runs)."""

    agents: tuple[str, ...]
    rules: str
    deals: int
    seed: int

    def differences(self, other: Settings) -> list[str]:
        """Each setting that differs: ``"deals 20 there, 10 here"``."""
        out = []
        for field in fields(self):
            there, here = getattr(other, field.name), getattr(self, field.name)
            if there != here:
                out.append(f"{field.name} {_show(there)} there, {_show(here)} here")
        return out


def _show(value: object) -> str:
    return " ".join(value) if isinstance(value, tuple) else str(value)


def matches(n_agents: int) -> list[Match]:
    """Every ordered pair of distinct agents, in the league's order.

    >>> matches(3)
    [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
    """
    return [(i, j) for i in range(n_agents) for j in range(n_agents) if i != j]


def run_league(
    specs: Sequence[str],
    rules: Rules = STANDARD,
    deals: int = 100,
    seed: int = 0,
    out: Path | str | None = None,
    workers: int = 1,
    backend: Backend | None = None,
    progress: bool = False,
    on_match: Callable[[Match], None] | None = None,
) -> LeagueResult:
    """Play and rate a league of the agents ``specs`` names (see the module docstring).

    Every spec is loaded, and ``out`` checked, before any game: a spec that does not
    load, fewer than two agents, an agent named twice, an unwritable ``out`` or one
    holding a league of other settings (but one these extend: :func:`extends`) raise
    :class:`ValueError` saying what was wrong.
    ``workers`` local processes, or a ``backend`` (Ray), play matches side by side; the
    results do not depend on either. ``on_match(match)`` is called as each match is saved.
    """
    settings = Settings(tuple(specs), rules.name, deals, seed)
    _check(settings, rules)
    folder = _prepare(Path(out), settings) if out is not None else None
    done = _saved(folder, settings) if folder is not None else {}
    todo = [m for m in matches(len(specs)) if m not in done]
    pairs = [(specs[i], specs[j]) for i, j in todo]
    runner = backend or Backend(workers)
    finished = runner.as_completed(partial(play_match, deals=deals, seed=seed, rules=rules), pairs)
    if progress:
        from tqdm import tqdm

        total = len(todo) + len(done)
        finished = tqdm(finished, total=total, initial=len(done), desc="league", unit="match")
    for index, games in finished:
        if isinstance(games, BaseException):
            raise games.cause if isinstance(games, TaskFailed) else games
        done[todo[index]] = games
        if folder is not None:
            _save_match(folder, todo[index], settings, games)
        if on_match is not None:
            on_match(todo[index])
    result = summarise_league(specs, rules.name, deals, seed, done)
    if folder is not None:
        result.write(folder)
    return result


def play_match(pair: tuple[str, str], deals: int, seed: int, rules: Rules) -> Games:
    """The games of one match: ``pair[0]`` in one seat against three of ``pair[1]``,
    on the duplicate deals ``0 .. deals - 1`` of ``seed``."""
    one, three = pair
    others = (load_agent(three, rules) for _ in range(rules.players - 1))
    players = [load_agent(one, rules), *others]
    return [play_deal(players, deal, seed, rules) for deal in range(deals)]


def _check(settings: Settings, rules: Rules) -> None:
    """Refuse, before any game, a league that cannot be played."""
    agents = settings.agents
    if len(agents) < 2:
        raise ValueError(f"a league needs at least two agents, got {len(agents)}: {list(agents)}")
    if twice := sorted({a for a in agents if agents.count(a) > 1}):
        raise ValueError(f"agents named more than once: {twice}; name each agent once")
    if settings.deals < 1:
        raise ValueError(f"a league needs at least 1 deal, got {settings.deals}")
    for spec in agents:
        try:
            load_agent(spec, rules)
        except (ValueError, ImportError) as e:
            raise ValueError(f"league agent {spec!r} does not load: {e}") from None


def _prepare(folder: Path, settings: Settings) -> Path:
    """``folder`` made and checked: writable, and empty of a league of other settings
    but one that ``settings`` extends (:func:`extends`), whose settings it takes."""
    if problem := unwritable(folder):
        raise ValueError(f"cannot write the league in {folder} ({problem}); choose another --out")
    path = folder / SETTINGS
    if path.exists():
        there = _settings(path)
        if extends(settings, there):
            _write_whole(path, asdict(settings))
        elif differ := settings.differences(there):
            raise ValueError(
                f"{folder} holds a league of other settings ({'; '.join(differ)}); give the "
                f"same settings to resume it, agents added after its own to extend it, or "
                f"another --out"
            )
    else:
        _write_whole(path, asdict(settings))
    (folder / "matches").mkdir(exist_ok=True)
    return folder


def extends(settings: Settings, there: Settings) -> bool:
    """Whether ``settings`` are those of the league ``there`` with agents added after its
    own: the same rules, deals and seed, so that every match ``there`` played keeps its
    place (:func:`matches`) and its games.

    >>> old = Settings(("random", "heuristic"), "standard", 100, 0)
    >>> extends(Settings(("random", "heuristic", "greedy"), "standard", 100, 0), old)
    True
    >>> extends(Settings(("greedy", "random", "heuristic"), "standard", 100, 0), old)
    False
    """
    n = len(there.agents)
    return len(settings.agents) > n and replace(settings, agents=settings.agents[:n]) == there


def _settings(path: Path) -> Settings:
    """The settings a league's folder holds."""
    data = _read(path)
    try:
        return Settings(tuple(data["agents"]), data["rules"], data["deals"], data["seed"])
    except (KeyError, TypeError):
        raise ValueError(f"{path} is not a league's settings; choose another --out") from None


def _saved(folder: Path, settings: Settings) -> dict[Match, Games]:
    """The matches already played into ``folder``."""
    done: dict[Match, Games] = {}
    for i, j in matches(len(settings.agents)):
        path = _match_path(folder, (i, j))
        if path.exists():
            data = _read(path)
            done[i, j] = [[(tuple(s), w) for s, w in deal] for deal in data["games"]]
    return done


def _save_match(folder: Path, match: Match, settings: Settings, games: Games) -> None:
    one, three = (settings.agents[k] for k in match)
    _write_whole(_match_path(folder, match), {"one": one, "three": three, "games": games})


def _match_path(folder: Path, match: Match) -> Path:
    return folder / "matches" / f"{match[0]:02d}-{match[1]:02d}.json"


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot read {path} ({e}); delete it to play it again") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a league's file; delete it to play it again")
    return data


def _write_whole(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` whole or not at all (a temporary file, renamed)."""
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        temporary.write_text(json.dumps(data), encoding="utf-8")
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
