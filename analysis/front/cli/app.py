"""The ``app`` command: the designer's workbench in the browser."""

from __future__ import annotations

import argparse
from typing import Any

from analysis.base.params import DicelabError
from analysis.front.cli import command, number


def register(sub: Any) -> None:
    p = command(sub, "app", "Serve the designer's workbench (checks, tune, duel, compare, design) in the browser "
                "on 127.0.0.1; needs the app extra: pip install 'dicelab[app]'", "dicelab app --port 8050", run_app)
    p.add_argument("--port", type=number(int), default=8050, metavar="N", help="port (default 8050; 0: any free port)")
    p.add_argument("--host", default="127.0.0.1", metavar="ADDR",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser window")


def run_app(ns: argparse.Namespace) -> int:
    try:
        from analysis.front.app import serve
    except ImportError as err:
        raise DicelabError(f"the app needs the app extra ({err.name} is missing): pip install 'dicelab[app]'") from None
    return serve(ns.host, ns.port, open_browser=not ns.no_browser)
