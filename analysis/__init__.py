"""dicelab: exact and Monte Carlo probability analysis of four tabletop systems.

>>> from analysis import check
>>> round(check("kurs", skill=2).p_success, 4)
0.8657

The library's layers are folders, each importing only the ones below it
(docs/architecture.md): ``base`` (plumbing), ``engine`` (exact machinery),
``systems`` (the rules), ``sims`` (Monte Carlo, a top-level package),
``fights`` (fighters and fights), ``present`` (tables, charts, words),
``tools`` (the designer's tools), ``front`` (command line, app, report, sweeps).

This module is the public facade: it imports nothing heavy itself; the names
below are loaded on first use, so the command line starts fast.
"""

from __future__ import annotations

import importlib
from typing import Any

from analysis.base import __version__
from analysis.base.params import DicelabError, ParamError

_LAZY = {"Dist": "analysis.engine.dist", "SYSTEM_IDS": "analysis.systems", "all_systems": "analysis.systems",
         "check": "analysis.systems", "get_system": "analysis.systems", "load_fighter": "analysis.fights.fighters",
         "archetypes": "analysis.fights.fighters", "Setup": "analysis.fights.setup"}
_MODULES = {"compare": "analysis.tools.compare", "lethality": "analysis.fights.lethality",
            "plots": "analysis.present.plots", "budget": "analysis.fights.budget"}

__all__ = ["DicelabError", "ParamError", "__version__", *_LAZY, *_MODULES]


def __getattr__(name: str) -> Any:
    """The public names of :data:`_LAZY` and the modules of :data:`_MODULES`, imported on first access."""
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in _MODULES:
        value = importlib.import_module(_MODULES[name])
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value
