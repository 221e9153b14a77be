"""``dicelab report``: the lab's report on the book's setup or the designer's own, optionally against a baseline."""

from __future__ import annotations

import argparse
import shlex
from dataclasses import replace
import sys
from typing import Any

from analysis.front.cli import command, emit
from analysis.front.cli.games import PLAY_CHOICES, PLAY_HELP
from analysis.present.i18n import LANGS

SECTIONS = ("checks", "worth", "tables", "combat", "lethality", "groups", "rules", "tactics", "played")
"""The report's sections in page order (:data:`analysis.front.report.SECTIONS`, named here so the command line
starts without loading the report)."""


def sections(text: str) -> tuple[str, ...]:
    """``--sections checks,lethality`` as a tuple in page order; an unknown name is refused with the allowed ones.

    >>> sections("lethality, checks")
    ('checks', 'lethality')
    """
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in SECTIONS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"sections = {text!r} is not allowed; allowed: names among "
                                         f"{', '.join(SECTIONS)}, separated by commas")
    return tuple(s for s in SECTIONS if s in names)


def register(sub: Any) -> None:
    p = command(sub, "report", "Write the lab's report (index.html, figures, tables) into a directory.",
                "dicelab report --config examples/report.toml --compare default --lang ru", run_report)
    p.add_argument("--out", default="reports", metavar="DIR", help="output directory (default: reports)")
    p.add_argument("--lang", default=None, choices=LANGS, help="language of the page and figures (default: the "
                   "config's lang, else en)")
    p.add_argument("--config", metavar="FILE.toml", help="the designer's setup: name, rules file, and per system "
                   "[SYSTEM] variants = {...}, a = FIGHTER, b = FIGHTER (examples/report.toml)")
    p.add_argument("--rules", metavar="FILE.toml", help="house rules, one table per system; replaces the config's "
                   "rules file")
    p.add_argument("--variant", action="append", default=[], metavar="SYSTEM.NAME=VALUE",
                   help="set a rule field of one system, over the config and rules file (repeatable), e.g. "
                   "tristat.die=8")
    p.add_argument("--a", action="append", default=[], metavar="SYSTEM=FIGHTER",
                   help="fighter A of one system: archetype, .toml/.json file or key=value,... (repeatable), "
                   "e.g. kurs=veteran")
    p.add_argument("--b", action="append", default=[], metavar="SYSTEM=FIGHTER", help="fighter B of one system, "
                   "like --a (default for both: trained_armed)")
    p.add_argument("--compare", metavar="BASELINE.toml", help="draw every figure as this setup against a baseline, "
                   "side by side: another report config, or 'default' (the book's rules, default fighters)")
    p.add_argument("--play", choices=PLAY_CHOICES, default=None,
                   help=f"how both sides play the combat figures' duels: {PLAY_HELP}; default: the config's play, "
                   "else book, for both setups under --compare (the Played-well section shows book and equilibrium "
                   "whatever this says)")
    p.add_argument("--sections", metavar="NAME,...", type=sections,
                   help=f"only these sections, in page order (default: all of {', '.join(SECTIONS)})")


def run_report(ns: argparse.Namespace) -> int:
    from analysis.base.files import check_output_dir, staged_dir
    from analysis.front.report import build_report
    from analysis.front.report.config import load_baseline, load_setup, read_config

    check_output_dir(ns.out)
    setup = load_setup(ns.config, ns.rules, ns.variant, ns.a, ns.b,
                       default_name="mine" if ns.compare is not None or ns.config else "default", play=ns.play)
    baseline = load_baseline(ns.compare) if ns.compare is not None else None
    if baseline is not None and ns.play is not None:
        baseline = replace(baseline, play=ns.play)
    lang = ns.lang or (read_config(ns.config).get("lang") if ns.config else None) or "en"
    try:
        with staged_dir(ns.out) as stage:
            written = build_report(stage, lang=lang, setup=setup, baseline=baseline, command=_command(ns, lang),
                                   sections=ns.sections or SECTIONS)
    except KeyboardInterrupt:
        print(f"dicelab report: interrupted; {ns.out}/ is left as it was (a report is written whole or not at all)",
              file=sys.stderr)
        return 130
    emit(f"wrote {len(written)} files into {ns.out}/\n"
         f"open {ns.out}/index.html in a browser (one self-contained page: send it alone, it needs nothing beside it)\n"
         "notebooks: make notebooks (JupyterLab with the project's kernel)\n")
    return 0


def _command(ns: argparse.Namespace, lang: str) -> str:
    """The command line that makes this report again, echoed at the foot of the page."""
    words = ["dicelab", "report", "--out", ns.out, "--lang", lang]
    for flag in ("config", "rules", "compare", "play"):
        if getattr(ns, flag):
            words += [f"--{flag}", getattr(ns, flag)]
    if ns.sections:
        words += ["--sections", ",".join(ns.sections)]
    for flag in ("variant", "a", "b"):
        for value in getattr(ns, flag):
            words += [f"--{flag}", value]
    return shlex.join(words)
