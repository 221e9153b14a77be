"""The project's own rules reference, ``docs/rules/``: one page per system, and the index.

Outputs that cite a rule point here (``docs/rules/<id>.md``, ``dicelab rules <id>``), never to files
outside the repository.

>>> rules_page("tun")
'docs/rules/tun.md'
"""

from __future__ import annotations

from pathlib import Path

from analysis.base.params import DicelabError
from analysis.systems import get_system

RULES_DIR = Path(__file__).resolve().parents[2] / "docs" / "rules"
"""Where the reference lives in the project's source tree."""


def rules_page(system_id: str) -> str:
    """The path of a system's page, as outputs cite it."""
    return f"docs/rules/{get_system(system_id).id}.md"


def read_page(system_id: str | None = None) -> str:
    """The text of a system's page, or of the index with ``None``."""
    name = "README.md" if system_id is None else f"{get_system(system_id).id}.md"
    path = RULES_DIR / name
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DicelabError(f"docs/rules/{name}: not found; the rules reference ships with the project's source "
                           f"(a clone of the repository)") from None
