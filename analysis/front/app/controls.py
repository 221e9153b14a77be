"""Controls generated from the library's field descriptions, so a field added to a system appears by itself.

Every control has the id ``{"type": "field", "key": KEY, "default": TEXT}``:
``KEY`` is its key in the URL state (:mod:`analysis.front.app.state`) and ``TEXT``
the value that leaves it out of the link.  A control holds text exactly as a
designer types it on the command line; the library parses and validates it.

>>> from analysis.base.params import Bool, Int
>>> kind(Bool()), kind(Int()), kind(Int(optional=True))
('select', 'number', 'text')
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from dash import dcc, html

from analysis.base.params import Bool, Choice, DicelabError, Int, ParamInfo, Spec
from analysis.engine.system import System
from analysis.fights.fighters import archetype, archetypes
from analysis.front.app.state import group
from analysis.front.app.text import field_label, system_name, t
from analysis.present.i18n import field_text
from analysis.present.phrases import field_hint, value_label
from analysis.present.tables import text
from analysis.systems import SYSTEM_IDS


def kind(spec: Spec) -> str:
    """How a spec is edited: ``select`` (a closed set), ``number`` (a plain integer) or ``text`` (anything else)."""
    if isinstance(spec, (Bool, Choice)):
        return "select"
    if isinstance(spec, Int) and not spec.optional:
        return "number"
    return "text"


def choices(spec: Spec) -> list[str]:
    """The values of a closed set, as text."""
    return ["true", "false"] if isinstance(spec, Bool) else [text(c) for c in spec.choices]  # type: ignore[attr-defined]


def fid(key: str, default: str) -> dict[str, str]:
    """A control's id."""
    return {"type": "field", "key": key, "default": default}


def select(key: str, options: Sequence[tuple[str, str]], value: str, default: str, title: str,
           hint: str = "") -> html.Div:
    """A labelled dropdown over ``(value, label)`` options; a value from a link that is not among them stays
    shown (a dropdown would drop it, silently rewriting the link) while the page says what is wrong with it."""
    if value not in (v for v, _ in options):
        options = [*options, (value, value)]
    return html.Div([
        html.Label(title, title=hint),
        dcc.Dropdown(id=fid(key, default), options=[{"value": v, "label": lab} for v, lab in options], value=value,
                     clearable=False, searchable=False),
    ], className="field")


def entry(key: str, info: ParamInfo, spec: Spec, value: str, default: str, title: str, lang: str,
          system: str = "") -> html.Div:
    """One field of a library dataclass: its name, a tooltip saying what it means, allows and defaults to, and
    its values as ``lang`` writes them (dice, words beside the identifiers)."""
    hint = field_hint(lang, field_text(lang, system, info.name, info.help), spec, default)
    how = kind(spec)
    name = html.Span([title, " ", html.Code(info.name)] if title != info.name else [html.Code(info.name)])
    if how == "select":
        options = [{"value": c, "label": value_label(lang, c)} for c in choices(spec)]
        if value not in choices(spec):
            options.append({"value": value, "label": value})
        control: Any = dcc.Dropdown(id=fid(key, default), options=options, value=value, clearable=False,
                                    searchable=False)
    else:
        control = dcc.Input(id=fid(key, default), type="number" if how == "number" and _is_int(value) else "text",
                            value=value, placeholder=value_label(lang, default),
                            inputMode="numeric" if how == "number" else None,
                            spellCheck=False, className="input")
    return html.Div([html.Label(name, title=hint), control], className="field", title=hint)


def _is_int(value: str) -> bool:
    try:
        int(value)
    except ValueError:
        return False
    return True


def fields(prefix: str, infos: Iterable[ParamInfo], specs: Mapping[str, Spec], state: Mapping[str, str],
           base: Mapping[str, Any], lang: str, system: str) -> list[html.Div]:
    """The fields ``infos`` of a dataclass under ``prefix``; ``base`` holds the values that leave a field out."""
    shown = group(state, prefix)
    out = []
    for info in infos:
        default = text(base[info.name])
        out.append(entry(f"{prefix}.{info.name}", info, specs[info.name], shown.get(info.name, default), default,
                         field_label(lang, info.name, system), lang, system))
    return out


def section(title: str, children: list[Any], open_: bool = True, cls: str = "") -> html.Details:
    """A titled, foldable group of fields."""
    return html.Details([html.Summary(title), html.Div(children, className="grid")], open=open_,
                        className=f"section {cls}".strip())


def system_select(key: str, state: Mapping[str, str], lang: str, default: str = SYSTEM_IDS[0]) -> html.Div:
    """The system chooser (its dependents are dropped when it changes)."""
    options = [(s, system_name(lang, s)) for s in SYSTEM_IDS]
    return select(key, options, state.get(key, default), default, t(lang, "system" if key != "to" else "to_system"))


def rules_panel(system: System, state: Mapping[str, str], prefix: str, lang: str,
                kinds: Sequence[str] = ("variant", "constant")) -> list[Any]:
    """The ruleset's fields by kind (readings of the text, house-rule constants, duel options), and a rules file."""
    infos = system.Rules.describe()
    specs, base = system.Rules.specs(), system.Rules.defaults()
    titles = {"variant": t(lang, "variants"), "constant": t(lang, "constants"), "option": t(lang, "options")}
    changed = group(state, prefix)
    out = []
    for k in kinds:
        chosen = [i for i in infos if i.kind == k]
        if not chosen:
            continue
        children: list[Any] = fields(prefix, chosen, specs, state, base, lang, system.id)
        out.append(section(titles[k], children, open_=k != "constant" or any(i.name in changed for i in chosen)))
    return [*out, upload(prefix, lang)]


def upload(prefix: str, lang: str) -> dcc.Upload:
    """A house rules file: its table for the system goes into the link, field by field."""
    return dcc.Upload(id={"type": "rules-file", "prefix": prefix}, children=html.A(t(lang, "rules_file")),
                      accept=".toml", max_size=1 << 20, className="upload")


def check_panel(system: System, state: Mapping[str, str], prefix: str, lang: str) -> html.Details:
    """The check's parameters (target, Рейтинг действия, Предел, skill and modifiers)."""
    cls = system.CheckArgs
    return section(t(lang, "check"), fields(prefix, cls.describe(), cls.specs(), state, cls.defaults(), lang, system.id))


DEFAULT_A, DEFAULT_B = "veteran", "trained_armed"


def default_archetype(system: System, side: str) -> str:
    """The archetype a side starts from: a veteran against a trained, armed fighter, where the system has them."""
    names = list(archetypes(system.id))
    wanted = DEFAULT_A if side.startswith("a") else DEFAULT_B
    return wanted if wanted in names else names[0]


def fighter_panel(system: System, state: Mapping[str, str], side: str, lang: str) -> html.Details:
    """A fighter: its archetype, then every parameter and policy (changed ones go into the link)."""
    cls = system.Fighter
    name = state.get(side, default_archetype(system, side))
    names = list(archetypes(system.id))
    chooser = select(side, [(n, n) for n in names], name, default_archetype(system, side), t(lang, "archetype"))
    try:
        base = archetype(system, name).to_dict()
    except DicelabError:  # an unknown archetype in a link: the fields show the plain defaults, the result says why
        base = cls.defaults()
    infos = cls.describe()
    params = [i for i in infos if i.kind != "policy"]
    policies = [i for i in infos if i.kind == "policy"]
    children = [chooser, *fields(side, params, cls.specs(), state, base, lang, system.id)]
    if policies:
        children += [html.H4(t(lang, "policies")), *fields(side, policies, cls.specs(), state, base, lang, system.id)]
    title = t(lang, "fighter_a" if side.startswith("a") else "fighter_b")
    return section(title, children, cls="fighter")
