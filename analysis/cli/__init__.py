"""The ``dicelab`` command line: a thin layer over the library.

Each command group lives in its own module with a ``register(subparsers)``
function; library errors (:class:`~analysis.params.DicelabError`) become one
line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from typing import Any, Callable, Sequence

from .. import __version__
from ..params import DicelabError, parse_pairs
from ..system import SYSTEM_IDS, System, get_system
from ..tables import dumps

FIRST = ("checks", "combat", "simulate")


def command_modules() -> list[str]:
    """Every module of this package with a ``register`` function: the core groups first, then the rest by name."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__))
    return [n for n in FIRST if n in names] + [n for n in names if n not in FIRST]


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the examples in epilogs as written."""


def build_parser() -> argparse.ArgumentParser:
    """The full parser with every command."""
    parser = argparse.ArgumentParser(
        prog="dicelab",
        description="Exact and Monte Carlo probability lab for Tri-Stat dX, 2K (1 and 6), ТУН and К.У.Р.С.",
        epilog="Example:\n  dicelab check tristat --die 6 --target 7\n  dicelab report --out reports",
        formatter_class=Formatter,
    )
    parser.add_argument("--version", action="version", version=f"dicelab {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in command_modules():
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dicelab`` console script."""
    parser = build_parser()
    ns = parser.parse_args(argv)
    try:
        return int(ns.func(ns) or 0)
    except DicelabError as err:
        print(f"dicelab {ns.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"dicelab {ns.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


# ------------------------------------------------------------------ helpers
def command(sub: Any, name: str, help: str, example: str, func: Callable[[argparse.Namespace], int | None]) -> argparse.ArgumentParser:
    """Add a command with a help line and an example epilog."""
    p = sub.add_parser(name, help=_escape(help), description=help, epilog=f"Example:\n  {example}", formatter_class=Formatter)
    p.set_defaults(func=func)
    return p


def _escape(text: str) -> str:
    """argparse %-formats help strings."""
    return text.replace("%", "%%")


def per_system(
    sub: Any,
    name: str,
    help: str,
    examples: dict[str, str],
    func: Callable[[argparse.Namespace], int | None],
    add: Callable[[argparse.ArgumentParser, System], None],
    systems: Sequence[str] = SYSTEM_IDS,
) -> None:
    """A command taking the system as its first argument, with per-system options."""
    lines = "\n".join(f"  {examples[s]}" for s in systems if s in examples)
    p = sub.add_parser(name, help=_escape(help), description=help, epilog=f"Examples:\n{lines}", formatter_class=Formatter)
    inner = p.add_subparsers(dest="system", required=True, metavar="SYSTEM")
    for sid in systems:
        system = get_system(sid)
        sp = inner.add_parser(sid, help=_escape(f"{system.title} ({system.dice})"), description=f"{help}: {system.title}",
                              epilog=f"Example:\n  {examples.get(sid, '')}", formatter_class=Formatter)
        add(sp, system)
        sp.set_defaults(func=func)


def add_rules_options(p: argparse.ArgumentParser, system: System) -> None:
    """``--rules FILE``, ``--variant NAME=VALUE`` (repeatable) and the system's ruleset flags (tristat ``--die``)."""
    names = ", ".join(i.name for i in system.Rules.describe())
    p.add_argument("--rules", metavar="FILE.toml", help="house rules: a TOML file with one table per system "
                   "([onesix] success_threshold = 14); --variant overrides it")
    p.add_argument("--variant", action="append", default=[], metavar="NAME=VALUE",
                   help=f"set a rule variant, constant or duel option (repeatable); fields: {names}")
    for info in system.Rules.describe():
        if info.name in system.rule_flags:
            p.add_argument(f"--{info.name.replace('_', '-')}", dest=f"rule_{info.name}", metavar="VALUE",
                           help=f"{info.help}; {info.allowed}; default {info.default}")


def add_params_options(p: argparse.ArgumentParser, cls: Any, prefix: str = "") -> None:
    """One ``--name`` option per parameter of a validated dataclass."""
    for info in cls.describe():
        flags = {f"--{info.name.replace('_', '-')}", f"--{info.name}"}
        p.add_argument(*sorted(flags, key=len), dest=f"{prefix}{info.name}", metavar="VALUE",
                       help=f"{info.help}; {info.allowed}; default {info.default}")


def rules_from(ns: argparse.Namespace, system: System) -> Any:
    """The ruleset from ``--rules FILE``, then ``--variant`` pairs and ruleset flags over it."""
    from ..house_rules import load_rules, ruleset

    values: dict[str, str] = {}
    for item in ns.variant:
        values.update(parse_pairs(item, "--variant"))
    for info in system.Rules.describe():
        flag = getattr(ns, f"rule_{info.name}", None)
        if flag is not None:
            values[info.name] = flag
    house = load_rules(ns.rules) if getattr(ns, "rules", None) else None
    return ruleset(system, house, values)


def params_from(ns: argparse.Namespace, cls: Any, prefix: str = "") -> Any:
    """A validated dataclass from the options :func:`add_params_options` added."""
    values = {i.name: getattr(ns, f"{prefix}{i.name}") for i in cls.describe() if getattr(ns, f"{prefix}{i.name}", None) is not None}
    return cls.from_text(values)


def emit(text: str) -> None:
    """Write to stdout."""
    sys.stdout.write(text)


def emit_json(obj: Any) -> None:
    """Write one JSON document to stdout."""
    sys.stdout.write(dumps(obj))
