"""dicelab: exact and Monte Carlo probability analysis of four tabletop systems.

>>> from analysis import check
>>> round(check("kurs", skill=2).p_success, 4)
0.8657

The package imports nothing heavy itself: ``Dist``, ``check`` and the system
registry are loaded on first use, so the command line starts fast.
"""

from __future__ import annotations

import importlib
from typing import Any

from .params import DicelabError, ParamError

__version__ = "0.2.0"

_LAZY = {"Dist": "dist", "SYSTEM_IDS": "system", "all_systems": "system", "check": "system", "get_system": "system"}

__all__ = ["Dist", "DicelabError", "ParamError", "SYSTEM_IDS", "all_systems", "check", "get_system", "__version__"]


def __getattr__(name: str) -> Any:
    """The public names of :data:`_LAZY`, imported on first access."""
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
