"""The systems' rules, one per system (``tristat``, ``onesix``, ``tun``, ``kurs``), and the registry that loads them.

Layer 2: a system's rules import ``analysis.base`` and ``analysis.engine`` only
(one file per system, or a package when its rules are large: ``onesix/``, ``kurs/``).
Each system module registers its ``SYSTEM`` descriptor when imported, and
:func:`get_system` imports a system only when asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Mapping

from analysis.base.params import DicelabError, shown
from analysis.engine.system import System

if TYPE_CHECKING:
    from analysis.engine.results import CheckResult

SYSTEM_IDS = ("tristat", "onesix", "tun", "kurs")


def get_system(system_id: str) -> System:
    """The system with this id.

    >>> get_system("kurs").title_ru
    'К.У.Р.С.'
    """
    if system_id not in SYSTEM_IDS:
        raise DicelabError(f"system = {shown(system_id)} is not allowed; allowed: one of {', '.join(SYSTEM_IDS)}")
    return importlib.import_module(f"analysis.systems.{system_id}").SYSTEM


def all_systems() -> list[System]:
    """The four systems in their canonical order."""
    return [get_system(s) for s in SYSTEM_IDS]


def check(system_id: str, variants: Mapping[str, Any] | None = None, **params: Any) -> CheckResult:
    """One exact check by system id, variants and check parameters.

    >>> round(check("tristat", target=7).p_success, 6)
    0.583333
    """
    system = get_system(system_id)
    return system.check(system.rules(**dict(variants or {})), system.args(**params))
