"""The systems loaded so far, by id: each system module registers its ``SYSTEM`` when it is imported.

The engine finds a result's system here (a result exists only once its system's
module is loaded); :func:`analysis.systems.get_system` loads a system by id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from analysis.base.params import DicelabError, changed_constants

if TYPE_CHECKING:
    from analysis.engine.system import System

_REGISTERED: dict[str, System] = {}


def register(system: System) -> System:
    """Record ``system`` under its id (each system module registers its ``SYSTEM``) and return it."""
    _REGISTERED[system.id] = system
    return system


def registered(system_id: str) -> System:
    """The system registered under ``system_id``.

    >>> from analysis.systems import get_system
    >>> get_system("kurs") is registered("kurs")
    True
    """
    if system_id not in _REGISTERED:
        raise DicelabError(f"system {system_id!r} is not loaded; load it with analysis.systems.get_system")
    return _REGISTERED[system_id]


def house_rules_of(system_id: str, variants: Mapping[str, Any]) -> dict[str, Any]:
    """The rule constants in a result's ``variants`` echo that differ from the book.

    >>> from analysis.systems import get_system
    >>> house_rules_of("tristat", get_system("tristat").rules().to_dict())
    {}
    """
    return changed_constants(registered(system_id).Rules, variants)
