"""The ``dicelab`` command line: a thin layer over the library.

Each command group lives in its own module with a ``register(subparsers)``
function.  To start fast, :func:`main` builds only what the command line names:
the module of the command (found by reading the modules' ``register`` source,
without importing them) and, for a per-system command, the named system's
options; the other commands get a help line only.

Exit codes: 0 done, 2 bad input (one line on stderr, plus at most one hint
line), 130 interrupted, 1 internal error (one line; ``DICELAB_DEBUG=1`` shows
the traceback).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import io
import json
import os
import pkgutil
import re
import sys
import traceback
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, NoReturn, Sequence

from analysis.base import __version__
from analysis.base.interrupt import received, signals
from analysis.base.params import SHOWN_CHARS, DicelabError, ParamError, Spec, merge_pairs, plain_number, shown
from analysis.engine.system import System
from analysis.systems import SYSTEM_IDS, get_system

FIRST = ("checks", "combat", "simulate")
DEBUG_ENV = "DICELAB_DEBUG"
GIVEN = "_dicelab_given"
"""Namespace attribute where :class:`StoreOnce` remembers the options already given."""


def command_modules() -> list[str]:
    """Every module of this package with a ``register`` function: the core groups first, then the rest by name."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__))
    return [n for n in FIRST if n in names] + [n for n in names if n not in FIRST]


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the examples in epilogs as written."""


class UsageError(DicelabError):
    """A command line argparse refused: printed as one line and a hint naming the ``--help`` to read."""

    def __init__(self, prog: str, message: str):
        self.prog = prog
        super().__init__(message)


class StoreOnce(argparse._StoreAction):
    """``store``, except that an option given twice is refused (argparse would keep the last value silently)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        given = namespace.__dict__.setdefault(GIVEN, {})
        if option_string is not None and self.dest in given:
            first_option, first = given[self.dest]
            parser.error(f"{option_string} is given twice ({first_option} {shown(first)} and {option_string} "
                         f"{shown(values)}); give it once")
        given[self.dest] = (option_string, values)
        super().__call__(parser, namespace, values, option_string)


class Parser(argparse.ArgumentParser):
    """Every parser of the command line: usage errors raise :class:`UsageError` (one line, exit 2) instead of
    printing the usage block; an option given twice is refused; long options are never abbreviated."""

    def __init__(self, *args: Any, **kwargs: Any):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.register("action", None, StoreOnce)
        self.register("action", "store", StoreOnce)

    def error(self, message: str) -> NoReturn:
        raise UsageError(self.prog, message)


@dataclass(frozen=True)
class Wanted:
    """What the command line names: build only that (``lazy``), or everything."""

    lazy: bool = False
    command: str | None = None
    system: str | None = None


_wanted = Wanted()


def wanted_from(argv: Sequence[str]) -> Wanted:
    """The command and system an argument list names (the first two words that are not options).

    >>> wanted_from(["check", "tristat", "--target", "7"])
    Wanted(lazy=True, command='check', system='tristat')
    >>> wanted_from(["--help"])
    Wanted(lazy=True, command=None, system=None)
    """
    words: list[str] = []
    for token in argv:
        if token.startswith("-") or len(words) == 2:  # the options of the level reached so far begin
            break
        words.append(token)
    return Wanted(True, *(words + [None, None])[:2])


@lru_cache(maxsize=None)
def commands_of(module: str) -> tuple[tuple[str, str], ...] | None:
    """``(command, help)`` of each command a module's ``register`` adds, read from its source without importing it;
    ``None`` when they cannot be read that way (the module is then imported).

    >>> [name for name, _ in commands_of("combat")]
    ['archetypes', 'exchange', 'resolve', 'duel']
    """
    try:
        tree = ast.parse(Path(__file__).with_name(f"{module}.py").read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    register = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "register"), None)
    if register is None or not register.args.args:
        return None
    sub = register.args.args[0].arg
    found: list[tuple[int, int, str, str]] = []
    for node in ast.walk(register):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id in ("command", "per_system"):
            if not (node.args and _is_name(node.args[0], sub)):
                continue
            if len(node.args) < 3:
                return None
            name, help_node = node.args[1], node.args[2]
        elif isinstance(f, ast.Attribute) and f.attr == "add_parser" and _is_name(f.value, sub):
            if not node.args:
                return None
            name = node.args[0]
            help_node = next((k.value for k in node.keywords if k.arg == "help"), None)
        else:
            continue
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            return None
        help_text = help_node.value if isinstance(help_node, ast.Constant) and isinstance(help_node.value, str) else ""
        found.append((node.lineno, node.col_offset, name.value, help_text))
    return tuple((name, help_text) for _, _, name, help_text in sorted(found)) or None


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def build_parser(argv: Sequence[str] | None = None) -> Parser:
    """The parser of the command line.  Without ``argv``: every command with every option; with ``argv``: only what
    it names is built in full (the other commands get their help line), which keeps start-up fast."""
    global _wanted
    parser = Parser(
        prog="dicelab",
        description="Exact and Monte Carlo probability lab for Tri-Stat dX, 2K (1 and 6), ТУН and К.У.Р.С.",
        epilog="Example:\n  dicelab check tristat --die 6 --target 7\n  dicelab report --out reports\n\n"
               "Exit codes: 0 done, 2 bad input, 130 interrupted, 1 internal error.",
        formatter_class=Formatter,
    )
    parser.add_argument("--version", action="version", version=f"dicelab {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    wanted = Wanted() if argv is None else wanted_from(argv)
    modules = command_modules()
    index = {name: commands_of(name) for name in modules}
    known = {cmd for found in index.values() if found for cmd, _ in found}
    if wanted.command is not None and wanted.command not in known:
        wanted = Wanted()  # an unknown command, or one added dynamically: build everything
    _wanted = wanted
    try:
        for name in modules:
            found = index[name]
            if wanted.lazy and found is not None and wanted.command not in {cmd for cmd, _ in found}:
                for cmd, help_text in found:
                    sub.add_parser(cmd, help=_escape(help_text), add_help=False)
            else:
                importlib.import_module(f"{__name__}.{name}").register(sub)
    finally:
        _wanted = Wanted()
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dicelab`` console script: the exit code (see the module's docstring)."""
    args = list(sys.argv[1:] if argv is None else argv)
    any_terminal()
    with signals():
        return _main(args)


def any_terminal() -> None:
    """Standard streams any terminal takes: a closed one (``>&-``) writes to /dev/null, and a character the
    terminal's encoding lacks (koi8-r, cp866, ascii...) is escaped (``\\u2014``) rather than an error."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))
        elif isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


def _check_environment() -> None:
    """The environment variables numba reads at import, checked before anything imports it."""
    threads = os.environ.get("NUMBA_NUM_THREADS")
    if threads is not None:
        try:
            ok = plain_number(threads, int) >= 1
        except ValueError:
            ok = False
        if not ok:
            raise ParamError("NUMBA_NUM_THREADS", threads, "an integer >= 1 (unset: every core)")


def _main(args: list[str]) -> int:
    label = "dicelab"
    try:
        _check_environment()
        ns = build_parser(args).parse_args(args)
        ns.__dict__.pop(GIVEN, None)
        system = getattr(ns, "system", None)
        label = " ".join(["dicelab", ns.command] + ([system] if isinstance(system, str) and system else []))
        return int(ns.func(ns) or 0)
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else _fail(label, str(exc.code), 2)
    except UsageError as err:
        prog = err.prog
        message = str(err)
        if message.startswith("unrecognized arguments"):
            message = unrecognized(args, message)
            if prog == "dicelab":  # found after the command parsed
                w = wanted_from(args)
                prog = " ".join(word for word in ("dicelab", w.command, w.system) if word)
        return _fail(prog, message, 2, f"try '{prog} --help'")
    except KeyboardInterrupt:
        return _interrupted(label)
    except DicelabError as err:
        _debug()
        return _interrupted(label) if received() else _fail(label, str(err), 2)
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except Exception as err:  # noqa: BLE001 - the last line of defence: one line, exit 1
        if received():  # an interruption a library turned into another error (numpy's import does)
            return _interrupted(label)
        more = "" if _debug() else f" (set {DEBUG_ENV}=1 to see the traceback)"
        return _fail(label, f"internal error: {type(err).__name__}: {err}{more}", 1)


def _interrupted(label: str) -> int:
    print(f"{label}: interrupted", file=sys.stderr)
    return 130


SHOWN_ARGUMENTS = 3
"""How many unrecognized arguments a refusal names (each cut like any echoed value)."""


def unrecognized(args: Sequence[str], message: str) -> str:
    """argparse's ``unrecognized arguments: ...`` naming at most :data:`SHOWN_ARGUMENTS` of them, a long or odd one
    quoted and cut.

    >>> unrecognized(["--x", "y" * 500], "unrecognized arguments: --x " + "y" * 500)
    "unrecognized arguments: --x 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy…' (500 characters)"
    """
    words = message.split(": ", 1)[1].split(" ")
    extra = [a for a in args if a in words] or words
    more = f" (and {len(extra) - SHOWN_ARGUMENTS:,} more)" if len(extra) > SHOWN_ARGUMENTS else ""
    plain = [a if 0 < len(a) <= SHOWN_CHARS and a.isprintable() and " " not in a else shown(a)
             for a in extra[:SHOWN_ARGUMENTS]]
    return "unrecognized arguments: " + " ".join(plain) + more


def _fail(label: str, message: str, code: int, hint: str | None = None) -> int:
    print(f"{label}: error: {terminal_safe(one_line(message))}", file=sys.stderr)
    if hint:
        print(f"hint: {terminal_safe(one_line(hint))}", file=sys.stderr)
    return code


def _debug() -> bool:
    """Print the traceback being handled when ``DICELAB_DEBUG`` is on (``1``, ``true``, ``yes``, ``on``; ``0``,
    ``false``, ``no``, ``off`` or unset: off); whether it was."""
    if os.environ.get(DEBUG_ENV, "").strip().lower() in ("1", "true", "yes", "on"):
        traceback.print_exc()
        return True
    return False


def _silence_stdout() -> None:
    """After a closed pipe (``dicelab ... | head``), send what is left to /dev/null so the exit is quiet."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


_LONG_QUOTED = re.compile(r"'([^'\n]{200,})'")
_LONG_DIGITS = re.compile(r"\d{60,}")


def one_line(text: str) -> str:
    """A message as one line: line breaks become spaces; a quoted value of 200 characters or more, or a run of 60
    digits or more, is cut (a safety net: messages cut what they echo with :func:`~analysis.base.params.shown`).

    >>> one_line("a\\nb")
    'a b'
    """
    text = " ".join(part.strip() for part in str(text).splitlines() if part.strip())
    text = _LONG_QUOTED.sub(lambda m: shown(m.group(1)), text)
    return _LONG_DIGITS.sub(lambda m: shown(int(m.group(0))), text)


# ------------------------------------------------------------------ helpers
def command(sub: Any, name: str, help: str, example: str, func: Callable[[argparse.Namespace], int | None]) -> argparse.ArgumentParser:
    """Add a command with a help line and an example epilog."""
    p = sub.add_parser(name, help=_escape(help), description=help, epilog=f"Example:\n  {example}", formatter_class=Formatter)
    p.set_defaults(func=func)
    return p


def _escape(text: str) -> str:
    """argparse %-formats help strings."""
    return text.replace("%", "%%")


DEAD_NOTE = ("Changed in 0.2: p_a_dead/p_b_dead mean explicit death only (null where the\n"
             "system has none: tristat, tun, kurs); their old meaning, out at the deepest\n"
             "level modelled, is p_a_dying/p_b_dying.")
"""The deprecation note of the duel outputs' ``p_*_dead`` fields (``duel`` and ``sim`` help)."""


def per_system(
    sub: Any,
    name: str,
    help: str,
    examples: dict[str, str],
    func: Callable[[argparse.Namespace], int | None],
    add: Callable[[argparse.ArgumentParser, System], None],
    systems: Sequence[str] = SYSTEM_IDS,
    note: str = "",
) -> None:
    """A command taking the system as its first argument, with per-system options (``note`` ends its help).

    While :func:`build_parser` builds for one command line, another command gets its help line only, and this
    command only the named system's options (every system's when none is named, for ``--help``)."""
    if _wanted.lazy and _wanted.command != name:
        sub.add_parser(name, help=_escape(help), add_help=False)
        return
    lines = "\n".join(f"  {examples[s]}" for s in systems if s in examples)
    tail = f"\n\n{note}" if note else ""
    p = sub.add_parser(name, help=_escape(help), description=help, epilog=f"Examples:\n{lines}{tail}",
                       formatter_class=Formatter)
    inner = p.add_subparsers(dest="system", required=True, metavar="SYSTEM")
    only = _wanted.system if _wanted.lazy and _wanted.system in systems else None
    for sid in systems:
        if only is not None and sid != only:
            continue
        system = get_system(sid)
        sp = inner.add_parser(sid, help=_escape(f"{system.title} ({system.dice})"), description=f"{help}: {system.title}",
                              epilog=f"Example:\n  {examples.get(sid, '')}{tail}", formatter_class=Formatter)
        add(sp, system)
        sp.set_defaults(func=func)


def add_rules_options(p: argparse.ArgumentParser, system: System) -> None:
    """``--rules FILE``, ``--variant NAME=VALUE`` (repeatable) and the system's ruleset flags (tristat ``--die``)."""
    names = ", ".join(i.name for i in system.Rules.describe())
    p.add_argument("--rules", metavar="FILE.toml", help="house rules: a TOML file with one table per system "
                   "([onesix] success_threshold = 14); --variant overrides it")
    p.add_argument("--variant", action="append", default=[], metavar="NAME=VALUE",
                   help=f"set a rule variant, constant or duel option (repeatable; each name once); fields: {names}")
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
    """The ruleset from ``--rules FILE``, then the ruleset flags and ``--variant`` pairs over it (a name set twice
    among them is refused)."""
    from analysis.tools.house_rules import load_rules, ruleset

    flags = {info.name: getattr(ns, f"rule_{info.name}") for info in system.Rules.describe()
             if getattr(ns, f"rule_{info.name}", None) is not None}
    values = merge_pairs(ns.variant, "--variant")
    for name, value in flags.items():
        if name in values:
            raise DicelabError(f"{name} is given twice (--{name.replace('_', '-')} {shown(value)} and --variant "
                               f"{name}={shown(values[name])}); give it once")
    values.update(flags)
    rules_file = getattr(ns, "rules", None)
    house = load_rules(rules_file) if rules_file is not None else None
    return ruleset(system, house, values)


def params_from(ns: argparse.Namespace, cls: Any, prefix: str = "") -> Any:
    """A validated dataclass from the options :func:`add_params_options` added."""
    values = {i.name: getattr(ns, f"{prefix}{i.name}") for i in cls.describe() if getattr(ns, f"{prefix}{i.name}", None) is not None}
    return cls.from_text(values)


def typed(spec: Spec, name: str) -> Callable[[str], Any]:
    """An argparse ``type=`` from a :class:`~analysis.base.params.Spec`: the value parsed and validated as the library
    would, a refusal one line naming the option (``--p 2``, ``--rounds inf``).

    >>> from analysis.base.params import Float
    >>> typed(Float(0, 1, open_lo=True), "p")("0.75")
    0.75
    """

    def parse(text: str) -> Any:
        try:
            return spec.parse(name, text)
        except ParamError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    parse.__name__ = name
    return parse


def number(cast: type) -> Callable[[str], Any]:
    """An argparse ``type=`` reading a plain ``int`` or ``float`` (:func:`~analysis.base.params.plain_number`): a
    refusal echoes what was typed (``--p 0_5`` is not read as 5).

    >>> number(float)("0.5"), number(int)("3")
    (0.5, 3)
    """

    def parse(text: str) -> Any:
        return plain_number(text, cast)

    parse.__name__ = "integer" if cast is int else "number"
    return parse


_UNSAFE = "\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
"""What a terminal must not be sent raw: control characters but tab and line feed (ANSI escapes, BEL, CR), C1
controls, bidirectional overrides (U+202E) and lone surrogates."""
_UNSAFE_RE = re.compile(f"[{_UNSAFE}]")
_NON_ASCII_RE = re.compile(f"[{_UNSAFE}\x80-\U0010ffff]")


def terminal_safe(text: str) -> str:
    r"""``text`` with what a terminal must not be sent raw escaped (a fighter's name, say).

    >>> terminal_safe("red\x1b[31m\u202e\tok\n")
    'red\\x1b[31m\\u202e\tok\n'
    """
    return _UNSAFE_RE.sub(lambda m: m.group(0).encode("unicode_escape", "backslashreplace").decode("ascii"), text)


def emit(text: str) -> None:
    """Write to stdout, :func:`terminal_safe`."""
    sys.stdout.write(terminal_safe(text))


def emit_json(obj: Any) -> None:
    """Write one JSON document to stdout: what a terminal must not get raw as ``\\uXXXX`` escapes, and every
    non-ASCII character too when stdout's encoding is not UTF (the JSON is the same to any reader)."""
    from analysis.present.tables import dumps

    encoding = (getattr(sys.stdout, "encoding", None) or "utf-8").lower().replace("_", "-")
    pattern = _UNSAFE_RE if encoding.startswith("utf") else _NON_ASCII_RE
    sys.stdout.write(pattern.sub(lambda m: json.dumps(m.group(0))[1:-1], dumps(obj)))
