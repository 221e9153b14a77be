"""The designer's workbench in the browser: ``dicelab app`` (Dash + plotly; the ``app`` extra).

Five pages — Checks, Tune, Duel, Compare, Design — each a thin view of the
library: every control is a field of a system's dataclasses, every number a
library call, every message the library's own.  The whole view lives in the
link's query string (:mod:`analysis.front.app.state`).
"""

from analysis.front.app.server import serve
from analysis.front.app.shell import create_app

__all__ = ["create_app", "serve"]
