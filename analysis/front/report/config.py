"""The designer's own setup for the report: a TOML config, a house rules file and command-line overrides.

A config (``examples/report.toml``)::

    name = "gritty campaign"          # how figures label this setup (default: mine)
    rules = "house_rules/gritty_2k.toml"   # house rules, relative to this file
    play = "equilibrium"              # how the combat figures' duels are played (default: book)

    [tristat]
    variants = { die = 8 }            # any ruleset field: variant, constant or duel option
    a = "veteran"                     # fighters: archetype, fighter file or key=value,...
    b = "trained_armed"

Precedence for a system's ruleset: the book, the house rules file (``--rules`` replaces the config's),
the config's ``variants``, then ``--variant SYSTEM.NAME=VALUE``; for fighters the config, then
``--a/--b SYSTEM=FIGHTER``; for the play the config, then ``--play``.

>>> s = load_setup(None, variants=["tristat.die=8"], a=["kurs=veteran"])
>>> s.ruleset("tristat").die, s.fighters("kurs")[0].name, s.name
(8, 'veteran', 'mine')
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from analysis.base.files import load_toml
from analysis.base.params import DicelabError, merge_pairs
from analysis.base.params import shown as show
from analysis.fights.setup import Setup
from analysis.systems import SYSTEM_IDS, get_system
from analysis.tools.house_rules import load_rules, ruleset

TOP_KEYS = ("name", "rules", "lang", "play")
SYSTEM_KEYS = ("variants", "a", "b")
DEFAULT = "default"
"""``--compare default``: the book's rules with the default fighters."""


def read_config(path: str | Path) -> dict[str, Any]:
    """A report config, read and checked: top-level ``name``, ``rules``, ``lang``, ``play`` and one table per
    system."""
    shown = f"report config {str(path)!r}"
    data = load_toml(path, "report config")
    for key, value in data.items():
        if key in SYSTEM_IDS:
            if not isinstance(value, Mapping):
                raise DicelabError(f"{shown}: {key} = {show(value)} is not allowed; allowed: a table [{key}]")
            for inner in value:
                if inner not in SYSTEM_KEYS:
                    raise DicelabError(f"{shown}: [{key}] {inner} is not allowed; allowed: {', '.join(SYSTEM_KEYS)}")
            if not isinstance(value.get("variants", {}), Mapping):
                raise DicelabError(f"{shown}: [{key}] variants = {show(value['variants'])} is not allowed; allowed: an "
                                   f"inline table of rule fields, e.g. variants = {{ die = 8 }}")
            for side in ("a", "b"):
                if side in value and (not isinstance(value[side], str) or not value[side].strip()):
                    raise DicelabError(f"{shown}: [{key}] {side} = {show(value[side])} is not allowed; allowed: a "
                                       "fighter as text: an archetype, a .toml/.json file or key=value,...")
        elif key not in TOP_KEYS:
            raise DicelabError(f"{shown}: {key} is not allowed; allowed: {', '.join(TOP_KEYS)} or a table per "
                               f"system ({', '.join(SYSTEM_IDS)})")
        elif not isinstance(value, str) or not value.strip():
            raise DicelabError(f"{shown}: {key} = {show(value)} is not allowed; allowed: a non-empty string")
    return data


def _per_system(items: Sequence[str], what: str, sep: str) -> dict[str, list[str]]:
    """``SYSTEM<sep>REST`` items grouped by system (``--variant tristat.die=8``, ``--a kurs=veteran``)."""
    out: dict[str, list[str]] = {}
    example = "tristat.die=8" if sep == "." else "kurs=veteran"
    for item in items:
        sid, found, rest = item.partition(sep)
        sid = sid.strip()
        if not found or sid not in SYSTEM_IDS or not rest.strip():
            raise DicelabError(f"{what} {show(item)} is not allowed; allowed: SYSTEM{sep}... with SYSTEM one of "
                               f"{', '.join(SYSTEM_IDS)}, e.g. {example}")
        out.setdefault(sid, []).append(rest.strip())
    return out


def load_setup(config: str | Path | None = None, rules: str | Path | None = None, variants: Sequence[str] = (),
               a: Sequence[str] = (), b: Sequence[str] = (), default_name: str = "mine",
               play: str | None = None) -> Setup:
    """The setup a report runs on, from a config file (or none) and the command line's overrides."""
    data = read_config(config) if config is not None else {}
    base_dir = Path(config).parent if config is not None else Path(".")
    rules_path = rules if rules is not None else (base_dir / data["rules"] if "rules" in data else None)
    house = load_rules(rules_path) if rules_path is not None else None
    cli_variants = {sid: merge_pairs(items, f"--variant {sid}") for sid, items in
                    _per_system(variants, "--variant", ".").items()}
    cli_a, cli_b = _one_each(a, "--a"), _one_each(b, "--b")
    rulesets, fa, fb = {}, {}, {}
    for sid in SYSTEM_IDS:
        table = data.get(sid, {})
        overrides = {k: v for k, v in table.get("variants", {}).items()}
        overrides.update(cli_variants.get(sid, {}))
        try:
            rulesets[sid] = ruleset(get_system(sid), house, overrides)
        except DicelabError as err:
            raise DicelabError(f"report config {str(config)!r}: [{sid}] {err}" if config is not None else str(err)) \
                from None
        fa[sid] = cli_a.get(sid, table.get("a"))
        fb[sid] = cli_b.get(sid, table.get("b"))
    label = data.get("name") or default_name
    try:
        return Setup.build(rulesets, fa, fb, name=label, source=str(config or ""),
                           play=play if play is not None else data.get("play", "book"))
    except DicelabError as err:
        raise DicelabError(f"report config {str(config)!r}: {err}" if config is not None and play is None
                           else str(err)) from None


def _one_each(items: Sequence[str], what: str) -> dict[str, str]:
    """``--a SYSTEM=FIGHTER`` per system; a system given twice is refused (the last would win silently)."""
    out: dict[str, str] = {}
    for sid, given in _per_system(items, what, "=").items():
        if len(given) > 1:
            raise DicelabError(f"{what}: {sid} is given twice ({show(given[0])} and {show(given[1])}); give each "
                               "system once")
        out[sid] = given[0]
    return out


def load_baseline(spec: str) -> Setup:
    """``--compare``: ``default`` (the book's rules, default fighters) or another report config."""
    if not spec.strip():
        raise DicelabError(f"--compare = {show(spec)} is not allowed; allowed: default or a report config file")
    if spec.strip() == DEFAULT:
        return Setup.build(name=DEFAULT)
    return load_setup(spec, default_name="baseline")
