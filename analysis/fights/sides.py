"""Sides of a fight from one line of text: ``3*trained_armed,veteran_armed`` (RULES.md section 7).

A side is fighters separated by commas, each written as a fighter is anywhere
else (an archetype name, a ``.toml``/``.json`` file, or inline ``key=value``
pairs), optionally led by a count ``N*``.  Inline fighters use commas between
their fields too, so a comma starts a new fighter only before:

- a count ``N*`` (``2*archetype=novice_armed,armor=1`` is two such fighters);
- ``archetype=`` (a fighter has one archetype);
- a word without ``=`` that is an archetype of the system or a fighter file.

Any other chunk continues the fighter before it (``archetype=veteran_armed,armor=3``
is one fighter; ``dk_faces=-1,0,1`` keeps its list).  A side of one fighter
is the duel's fighter, exactly as :func:`~analysis.fights.fighters.load_fighter`
reads it.

A ``.toml``/``.json`` file is a fighter file (a table of one fighter's
parameters) or a **side file**, a table whose ``side`` entry is the side: the
same text as on the command line, or a list whose items are that text (each
may lead with ``N*``) or tables of a fighter's parameters with an optional
``count``::

    side = ["3*novice_armed", {archetype = "veteran_armed", armor = 3, name = "captain"}]

A file named inside a side file is read relative to the side file's folder.

>>> from analysis.systems import get_system
>>> tun = get_system("tun")
>>> side = parse_side(tun, "2*archetype=novice_armed,name=mook,trained_armed", "--a")
>>> [f.name for f in side]
['mook', 'mook', 'trained_armed']
>>> side_text(side)
'2*mook, trained_armed'
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Sequence

from analysis.base.files import load_data
from analysis.base.params import DicelabError, shown
from analysis.engine.system import System
from analysis.fights.fighters import archetypes, build_fighter, load_fighter, require_content

MAX_COUNT = 50
"""The largest count ``N*`` before one fighter of a side."""
SIDE_ALLOWED = ("fighters separated by commas, each an archetype name, a .toml/.json file or inline key=value pairs, "
                "optionally led by a count N* (3*trained_armed,veteran_armed)")
SIDE_FILE_ALLOWED = ("the side's text (3*trained_armed,veteran_armed) or a list of such texts and tables of a "
                     "fighter's parameters with an optional count")
_COUNT = re.compile(r"\s*(\d+)\s*\*(.*)", re.DOTALL)


def split_side(system: System, text: str) -> list[tuple[int, str]]:
    """``(count, fighter text)`` of each fighter a side's text names, in order (see the module docstring).

    >>> from analysis.systems import get_system
    >>> split_side(get_system("tun"), "3*trained_armed,archetype=veteran_armed,armor=3")
    [(3, 'trained_armed'), (1, 'archetype=veteran_armed,armor=3')]
    """
    names = set(archetypes(system.id))
    parts: list[list[Any]] = []
    for chunk in text.split(","):
        m = _COUNT.fullmatch(chunk)
        word = (m.group(2) if m else chunk).strip()
        starts = (m is not None or word.startswith("archetype=") or
                  ("=" not in word and (word in names or word.lower().endswith((".toml", ".json")))))
        if starts or not parts:
            parts.append([int(m.group(1)) if m else 1, word])
        else:
            parts[-1][1] += "," + chunk
    return [(count, spec) for count, spec in parts]


def parse_side(system: System, text: str, what: str = "--a") -> tuple[Any, ...]:
    """The fighters of a side (a count ``N*`` repeats one); a bad count or fighter is one line naming ``what``."""
    if not isinstance(text, str) or not text.strip():
        raise DicelabError(f"{what} = {shown(text)} is not allowed; allowed: {SIDE_ALLOWED}")
    fighters: list[Any] = []
    for count, spec in split_side(system, text):
        if not spec:
            raise DicelabError(f"{what}: {shown(text)} has a count with no fighter after it; allowed: {SIDE_ALLOWED}")
        fighters += _counted(count, what) * list(_file_side(system, spec, what) or (load_fighter(system, spec, what),))
    return tuple(fighters)


def _counted(count: int, what: str) -> int:
    if not 1 <= count <= MAX_COUNT:
        raise DicelabError(f"{what}: count {count}* is not allowed; allowed: 1 to {MAX_COUNT} before a fighter")
    return count


def _file_side(system: System, spec: str, what: str) -> tuple[Any, ...] | None:
    """The fighters of a side file (see the module docstring), or ``None`` when ``spec`` is no side file."""
    path = Path(spec.strip())
    if path.suffix.lower() not in (".toml", ".json") or not path.is_file():
        return None
    data = load_data(path, "side file")
    if not isinstance(data, dict) or "side" not in data:
        return None
    where = f"{what}: side file {spec!r}"
    if set(data) != {"side"}:
        raise DicelabError(f"{where}: {sorted(set(data) - {'side'})} beside 'side' is not allowed; allowed: only "
                           "'side' (a fighter file holds one fighter's parameters without it)")
    entries = data["side"]
    entries = [entries] if isinstance(entries, str) else entries
    if not isinstance(entries, list) or not entries:
        raise DicelabError(f"{where}: side = {shown(data['side'])} is not allowed; allowed: {SIDE_FILE_ALLOWED}")
    fighters: list[Any] = []
    for i, entry in enumerate(entries):
        if isinstance(entry, str):
            fighters += parse_side(system, beside(system, entry, path.parent), f"{where}, side[{i}]")
        elif isinstance(entry, dict):
            entry = dict(entry)
            count = entry.pop("count", 1)
            if not isinstance(count, int) or isinstance(count, bool):
                raise DicelabError(f"{where}, side[{i}]: count = {shown(count)} is not allowed; allowed: an "
                                   f"integer 1 to {MAX_COUNT}")
            require_content(system, entry, f"{where}, side[{i}]")
            fighters += [build_fighter(system, entry, f"{where}, side[{i}]",
                                       default_name=None if "archetype" in entry else f"{path.stem} {i + 1}")
                         ] * _counted(count, f"{where}, side[{i}]")
        else:
            raise DicelabError(f"{where}: side[{i}] = {shown(entry)} is not allowed; allowed: {SIDE_FILE_ALLOWED}")
    return tuple(fighters)


def beside(system: System, text: str, folder: Path) -> str:
    """A side's text with each fighter or side file it names read relative to ``folder``.

    >>> from analysis.systems import get_system
    >>> beside(get_system("tun"), "2*party.toml,red", Path("cfg"))
    '2*cfg/party.toml,1*red'
    """
    return ",".join(f"{count}*{folder / spec}" if spec.lower().endswith((".toml", ".json")) and
                    not Path(spec).is_absolute() else f"{count}*{spec}" for count, spec in split_side(system, text))


def side_text(side: Sequence[Any]) -> str:
    """A side in words: runs of the same fighter as ``N*name``."""
    runs: list[list[Any]] = []
    for f in side:
        if runs and runs[-1][0] == f:
            runs[-1][1] += 1
        else:
            runs.append([f, 1])
    return ", ".join(f"{n}*{f.name}" if n > 1 else f.name for f, n in runs)
