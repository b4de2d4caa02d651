"""What a study is: its settings (observers x grid values), seeds and budget, and its cells.

A :class:`Study` comes from the command line or a TOML file. Each *setting* is one
observer with one value of every ``--grid`` option; each *cell* is a setting trained with
one seed. An observer entry may carry options of its own, for a setting that only some
observers can take: ``"history body=gru"`` is the ``history`` observer read by the
sequence body, beside plain ``"history"``. Every cell is a
:class:`training.config.Config`: the study's ``--set`` options, the setting's values, the
seed, the budget, one torch thread, and its own run directory.

>>> study = Study(observers=("simple", "planes"), seeds=2, grid=(("actions", ("catalog", "hand")),))
>>> [s.label for s in study.settings()]
['simple actions=catalog', 'simple actions=hand', 'planes actions=catalog', 'planes actions=hand']
>>> len(study.cells(Path("study")))
8
>>> coerce("hidden", "64 32"), coerce("plan_features", "yes"), coerce("critic_observer", "")
((64, 32), True, '')
>>> [s.name for s in Study(observers=("history", "history body=gru")).settings()]
['history', 'history body=gru']
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import observers
from training.config import STUDY_ONLY, Config

ALL_OBSERVERS = ("simple", "card_counting", "history", "planes", "charlesworth", "oracle")
# what the study itself sets in every cell (--observers, --seeds, --steps, --threads, the
# run directory), and what would make cells unequal or unrepeatable (a wall-clock budget;
# where a cell runs is the study's --backend): --set and --grid may not touch them
OWN = (
    "observer",
    "seed",
    "steps",
    "run_dir",
    "threads",
    "max_minutes",
    "backend",
    "ray_address",
    *STUDY_ONLY,
)
# the measurement: the same deals and opponents for every cell, so not in --grid
MEASURED = ("eval_opponents", "eval_seed", "eval_deals", "eval_engine")
CHEATING = "cheating upper bound"
TRUE, FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
_DEFAULTS = {f.name: f.default for f in fields(Config)}
_META = {f.name: f.metadata for f in fields(Config)}


def coerce(key: str, value: Any) -> Any:
    """``value`` (text from the command line, or TOML data) as the type of option ``key``;
    ValueError naming the option and what it takes if it is not one, or is outside the
    option's bounds or choices (:class:`training.config.Config`'s declarations).

    Tuple options take space-separated text or a list; booleans take true/false/yes/no/1/0
    as text, and only true or false as TOML data.

    >>> coerce("lr", 1), coerce("opponents", ["random", "greedy"])
    (1.0, ('random', 'greedy'))
    >>> coerce("envs", 1.5)
    Traceback (most recent call last):
    ValueError: option 'envs' takes an integer, not 1.5
    """
    if key in OWN:
        raise ValueError(
            f"{key!r} is set by the study itself (--observers, --seeds, --steps, --threads, "
            f"--backend), or would make cells unequal"
        )
    if key not in _DEFAULTS:
        raise ValueError(
            f"unknown training option {key!r}; expected one of {sorted(set(_DEFAULTS) - set(OWN))}"
        )
    default = _DEFAULTS[key]
    if not isinstance(default, tuple):
        return _allowed(key, _scalar(key, type(default), value))
    if not isinstance(value, str | list | tuple):
        raise ValueError(f"option {key!r} takes a list (or space-separated values), not {value!r}")
    items = value.split() if isinstance(value, str) else list(value)
    kind = type(default[0]) if default else str
    return tuple(_allowed(key, _scalar(key, kind, v)) for v in items)


_WORDS_OF = {int: "an integer", float: "a number", str: "text", bool: "true or false"}


def _scalar(key: str, kind: type, value: Any) -> Any:
    """One value of option ``key`` as ``kind``: text is parsed, TOML data must have the
    kind already (an integer also serves as a number)."""
    if isinstance(value, str):
        return _parsed(key, kind, value)
    if isinstance(value, bool):
        if kind is bool:
            return value
    elif kind is int and isinstance(value, int):
        return value
    elif kind is float and isinstance(value, int | float):
        return float(value)
    raise ValueError(f"option {key!r} takes {_WORDS_OF[kind]}, not {value!r}")


def _parsed(key: str, kind: type, text: str) -> Any:
    """Text of option ``key`` (from the command line or a TOML string) as ``kind``."""
    if kind is bool:
        if text.lower() in TRUE + FALSE:
            return text.lower() in TRUE
    else:
        try:
            return kind(text)
        except ValueError:
            pass
    raise ValueError(f"option {key!r} takes {_WORDS_OF[kind]}, not {text!r}")


def _allowed(key: str, value: Any) -> Any:
    """``value``, if it is inside option ``key``'s bounds and choices."""
    meta = _META[key]
    if meta["bounds"] is not None and not meta["bounds"].holds(value):
        raise ValueError(f"option {key!r} must be {meta['bounds'].text()}, not {value!r}")
    if meta["choices"] and value not in meta["choices"]:
        raise ValueError(f"option {key!r} takes one of {list(meta['choices'])}, not {value!r}")
    return value


def parse_entry(entry: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
    """An observers entry, ``"NAME [KEY=VALUE ...]"``: the observer and its own options.

    >>> parse_entry("history body=gru")
    ('history', (('body', 'gru'),))
    """
    if not entry.split():
        raise ValueError(f"an observers entry names no observer: {entry!r}")
    name, *options = entry.split()
    values = []
    for option in options:
        key, sep, value = option.partition("=")
        if not sep or not key:
            raise ValueError(f"observer entry {entry!r}: options take KEY=VALUE, got {option!r}")
        values.append((key, coerce(key, value)))
    return name, tuple(values)


@dataclass(frozen=True)
class Setting:
    """One observer with one value of each grid option."""

    observer: str
    values: tuple[tuple[str, Any], ...] = ()

    @property
    def cheats(self) -> bool:
        """Whether the actor sees every hand (an upper bound, labelled in every output)."""
        return bool(observers.REGISTRY[self.observer].perfect_information)

    @property
    def name(self) -> str:
        """The setting's short name: observer, then ``key=value`` for each grid option."""
        return " ".join([self.observer, *(f"{k}={as_text(v)}" for k, v in self.values)])

    @property
    def label(self) -> str:
        """The name, marked as cheating when the actor sees every hand."""
        return f"{self.name} ({CHEATING})" if self.cheats else self.name

    @property
    def slug(self) -> str:
        """The setting's directory name."""
        return re.sub(r"[^A-Za-z0-9_.=-]+", "_", self.name.replace(" ", "__")) or "_"


def as_text(value: Any) -> str:
    """An option's value as text in names and tables (tuples joined by ``/``).

    >>> as_text((256, 128)), as_text(True), as_text("")
    ('256/128', 'true', '')
    """
    if isinstance(value, tuple | list):
        return "/".join(map(str, value))
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class Axis:
    """One way a crossed study's settings vary: the observer entries or a grid option,
    each level with its settings (one for every combination of the other axes)."""

    name: str
    levels: tuple[tuple[str, tuple[Setting, ...]], ...]

    def level_of(self, setting: Setting) -> str:
        """The level ``setting`` has on this axis."""
        return next(level for level, members in self.levels if setting in members)


@dataclass(frozen=True)
class Cell:
    """One setting trained with one seed, in its own directory."""

    setting: Setting
    seed: int
    config: Config
    directory: Path

    @property
    def name(self) -> str:
        return f"{self.setting.name} seed {self.seed}"


@dataclass(frozen=True)
class Study:
    """A grid of settings x seeds, trained with the same budget and evaluated alike.

    ``fixed``: training options for every cell (``--set``); ``grid``: options varied
    beside the observer (``--grid``). Validation deals are the training runs' own
    per-epoch evaluations (``eval_seed``: the curves); the reported figures come from
    ``report_deals`` fresh duplicate deals of ``report_seed``, played by each cell's
    final policy, which nothing was chosen on.
    """

    observers: tuple[str, ...] = ALL_OBSERVERS
    seeds: int = 3
    steps: int = 100_000
    fixed: tuple[tuple[str, Any], ...] = ()
    grid: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    baseline: str = ""  # the setting differences are taken against; "" = the first
    report_deals: int = 200
    report_seed: int = 2026
    threads: int = 1  # torch threads per cell
    command: str = field(default="", compare=False)  # how it was run (for the summary)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fixed", tuple((k, coerce(k, v)) for k, v in self.fixed))
        grid = tuple((k, tuple(coerce(k, v) for v in vs)) for k, vs in self.grid)
        object.__setattr__(self, "grid", grid)

    def check(self) -> None:
        """Raise ValueError for a study that cannot run (before anything is written)."""
        for name, kind in _TYPES.items():
            value = getattr(self, name)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise ValueError(f"study key {name!r} takes {_WORDS[kind]}, got {value!r}")
        if not all(isinstance(o, str) for o in self.observers):
            raise ValueError(f"study key 'observers' takes a list of names, got {self.observers!r}")
        if not self.observers:
            raise ValueError("a study needs at least one observer")
        grid_keys = {k for k, _ in self.grid} | {k for k, _ in self.fixed}
        for entry in self.observers:
            name, own = parse_entry(entry)
            observers.make(name)
            for key, _ in own:
                if key in grid_keys:
                    raise ValueError(
                        f"observer entry {entry!r} sets {key!r}, which --set or --grid sets too"
                    )
        if len(set(self.observers)) != len(self.observers):
            raise ValueError(f"observers are listed twice: {list(self.observers)}")
        for name in ("seeds", "steps", "report_deals", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        for key, values in self.grid:
            if not values:
                raise ValueError(f"--grid {key} has no values")
            if len(set(values)) != len(values):
                raise ValueError(f"--grid {key} lists a value twice: {list(values)}")
            if key in dict(self.fixed):
                raise ValueError(f"{key!r} is both fixed (--set) and varied (--grid)")
            if key in MEASURED:
                raise ValueError(f"{key!r} is how every cell is measured; fix it with --set")
        names = [s.name for s in self.settings()]
        slugs = [s.slug for s in self.settings()]
        if len(set(slugs)) != len(slugs):
            raise ValueError(f"two settings would share a directory: {names}")
        if self.baseline and self.baseline not in names:
            raise ValueError(
                f"baseline {self.baseline!r} is not a setting; expected one of {names}"
            )
        eval_seed = dict(self.fixed).get("eval_seed", _DEFAULTS["eval_seed"])
        if eval_seed == self.report_seed:
            raise ValueError(
                f"report_seed {self.report_seed} is also the validation deals' eval_seed; the "
                f"reported deals must be ones nothing was chosen on"
            )
        for cell in self.cells(Path("study")):
            try:
                cell.config.check()
            except ValueError as e:
                raise ValueError(f"cell {cell.name}: {e}") from None

    def settings(self) -> list[Setting]:
        """Every observer x every combination of grid values, in order."""
        keys = [k for k, _ in self.grid]
        combos = list(itertools.product(*(vs for _, vs in self.grid)))
        out = []
        for entry in self.observers:
            name, own = parse_entry(entry)
            out += [Setting(name, own + tuple(zip(keys, values, strict=True))) for values in combos]
        return out

    def axes(self) -> list[Axis]:
        """The axes with two levels or more: the observer entries, then each grid option.

        >>> study = Study(observers=("history", "history body=gru"),
        ...               grid=(("critic_observer", ("oracle", "")),))
        >>> [(a.name, [level for level, _ in a.levels]) for a in study.axes()]
        [('observer', ['history', 'history body=gru']), ('critic_observer', ['oracle', ''])]
        >>> [s.name for s in study.axes()[1].levels[1][1]]
        ['history critic_observer=', 'history body=gru critic_observer=']
        """
        settings = self.settings()
        per_entry = len(settings) // len(self.observers)
        found = []
        if len(self.observers) > 1:
            blocks = [settings[i : i + per_entry] for i in range(0, len(settings), per_entry)]
            levels = zip(self.observers, map(tuple, blocks), strict=True)
            found.append(Axis("observer", tuple(levels)))
        for key, values in self.grid:
            if len(values) > 1:
                having = [tuple(s for s in settings if dict(s.values)[key] == v) for v in values]
                levels = zip(map(as_text, values), having, strict=True)
                found.append(Axis(key, tuple(levels)))
        return found

    @property
    def reference(self) -> Setting:
        """The setting the paired differences are taken against."""
        found = [s for s in self.settings() if s.name == self.baseline]
        return found[0] if found else self.settings()[0]

    def cells(self, root: Path) -> list[Cell]:
        """Every (setting, seed) cell, with its config and directory under ``root``."""
        out = []
        for setting in self.settings():
            for seed in range(self.seeds):
                directory = root / "cells" / setting.slug / f"seed{seed}"
                options = {**dict(self.fixed), **dict(setting.values)}
                cfg = replace(
                    Config(threads=self.threads),
                    **options,
                    observer=setting.observer,
                    seed=seed,
                    steps=self.steps,
                    run_dir=str(directory / "run"),
                    upper_bound=setting.cheats,
                )
                out.append(Cell(setting, seed, cfg, directory))
        return out

    @property
    def eval_opponents(self) -> tuple[str, ...]:
        """The opponents every cell is evaluated against."""
        value: tuple[str, ...] = dict(self.fixed).get("eval_opponents", _DEFAULTS["eval_opponents"])
        return value

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data that identifies the study's results (not how it was run)."""
        data = asdict(self)
        del data["command"]
        data["fixed"] = {k: _json(v) for k, v in self.fixed}
        data["grid"] = {k: [_json(v) for v in vs] for k, vs in self.grid}
        data["observers"] = list(self.observers)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], command: str = "") -> Study:
        """A study from :meth:`to_dict` data or a TOML file's tables."""
        known = {f.name for f in fields(cls)} - {"command"}
        unknown = set(data) - known
        if unknown:
            raise ValueError(
                f"unknown study keys {sorted(unknown)}; expected some of {sorted(known)}"
            )
        values = dict(data)
        listed = values.get("observers", ALL_OBSERVERS)
        if isinstance(listed, str) or not isinstance(listed, list | tuple):
            raise ValueError(f"study key 'observers' takes a list of names, got {listed!r}")
        values["observers"] = tuple(listed)
        for key in ("fixed", "grid"):
            if not isinstance(values.get(key, {}), dict | list | tuple):
                raise ValueError(f"study key {key!r} takes a table of options, got {values[key]!r}")
        values["fixed"] = _pairs(values.get("fixed", {}))
        grid = _pairs(values.get("grid", {}))
        for key, listed in grid:
            if isinstance(listed, str) or not isinstance(listed, list | tuple):
                raise ValueError(f"grid {key!r} needs a list of values, got {listed!r}")
        values["grid"] = tuple((k, tuple(v)) for k, v in grid)
        return cls(**values, command=command)


_TYPES = {
    "seeds": int,
    "steps": int,
    "report_deals": int,
    "report_seed": int,
    "threads": int,
    "baseline": str,
}
_WORDS = {int: "an integer", str: "text"}


def _json(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _pairs(data: dict[str, Any] | Iterable[tuple[str, Any]]) -> tuple[tuple[str, Any], ...]:
    return tuple(data.items()) if isinstance(data, dict) else tuple(data)


def differences(saved: dict[str, Any], study: Study) -> list[str]:
    """The study settings that differ between ``saved`` (a study.json) and ``study``."""
    mine = study.to_dict()
    return [
        f"{key}: {saved.get(key)!r} there, {mine.get(key)!r} here"
        for key in sorted(set(saved) | set(mine))
        if saved.get(key) != mine.get(key)
    ]
