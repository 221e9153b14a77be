"""``dicelab report``: the lab's main job on its built-in defaults."""

from __future__ import annotations

import argparse
from typing import Any

from ..i18n import LANGS
from . import command, emit


def register(sub: Any) -> None:
    p = command(sub, "report", "Write the lab's report (tables and figures) into a directory.",
                "dicelab report --out reports --lang ru", run_report)
    p.add_argument("--out", default="reports", metavar="DIR", help="output directory (default: reports)")
    p.add_argument("--lang", default="en", choices=LANGS, help="language of labels (default: en)")


def run_report(ns: argparse.Namespace) -> int:
    from ..files import check_output_dir
    from ..report import build_report

    check_output_dir(ns.out)
    written = build_report(ns.out, lang=ns.lang)
    emit(f"wrote {len(written)} files into {ns.out}/\n")
    return 0
