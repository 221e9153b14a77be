"""The lab's report: every comparison table (CSV), figure (PNG) and an ``index.html``
that reads straight from disk, in English or Russian.

>>> import tempfile, pathlib
>>> out = pathlib.Path(tempfile.mkdtemp())
>>> names = {p.name for p in build_report(out, sections=("checks",))}
>>> {"index.html", "success_curves.png", "success_curves.csv", "kurs_checks.md"} <= names
True
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import pandas as pd
from matplotlib.figure import Figure

from . import __version__, compare, lethality, plots
from .i18n import LANGS, label
from .params import Choice
from .system import all_systems
from .files import write_atomic
from .tables import pairs, render, success_table

SECTIONS = ("checks", "combat", "rules")


@dataclass(frozen=True)
class Item:
    """One figure of the report, with the table behind it."""

    name: str
    table: pd.DataFrame
    plot: Callable[[pd.DataFrame, str], Figure]
    caption: dict[str, str]


TEXT = {
    "en": {
        "title": "dicelab report: four systems compared",
        "intro": ("Exact computations (convolution and absorbing Markov chains) for Tri-Stat dX, the 2K system "
                  "with the rule of 1 and 6, TUN and K.U.R.S., under the default rules of RULES.md unless a "
                  "caption says otherwise. Every figure has its table beside it as CSV."),
        "checks": "Checks", "combat": "Combat lethality", "rules": "Rule readings", "table": "table (CSV)",
        "rules_used": "Rules", "version": "dicelab version",
        "matching": ("Fighters are matched across systems by archetype: each system's trained, armed fighter "
                     "(built from its own seed's scale) against itself. A skill gap of k raises A's combat "
                     "skills by k points of that system; since a point is worth different amounts, the left "
                     "panel puts the systems on a common axis, the hit edge (A's chance to hit B in one exchange "
                     "minus B's chance to hit A)."),
    },
    "ru": {
        "title": "Отчёт dicelab: сравнение четырёх систем",
        "intro": ("Точные расчёты (свёртки и поглощающие марковские цепи) для Tri-Stat dX, системы 2К с правилом "
                  "1 и 6, ТУН и К.У.Р.С. по правилам RULES.md по умолчанию, если в подписи не сказано иное. "
                  "Рядом с каждым рисунком — его таблица в CSV."),
        "checks": "Проверки", "combat": "Смертоносность боя", "rules": "Прочтения правил", "table": "таблица (CSV)",
        "rules_used": "Правила", "version": "версия dicelab",
        "matching": ("Бойцы сопоставлены по архетипу: обученный боец с оружием каждой системы (по шкале её "
                     "собственного текста) против такого же. Разница в навыках k поднимает боевые навыки A на k "
                     "очков этой системы; очки систем неравноценны, поэтому левая панель ставит системы на общую "
                     "ось — перевес в попаданиях (шанс A попасть по B за обмен минус шанс B попасть по A)."),
    },
}

CAPTIONS = {
    "success_curves": {"en": "P(success) against the modifier from each system's 50% point (tristat 2d6, tun 3d6).",
                       "ru": "P(успеха) от модификатора относительно точки 50% (tristat 2d6, ТУН 3d6)."},
    "success_absolute": {"en": "The same curves in each system's own terms: Tri-Stat target, 2K action rating, "
                               "TUN limit, K.U.R.S. skill.",
                         "ru": "Те же кривые в терминах систем: Цель Tri-Stat, Рейтинг действия 2К, Предел ТУН, "
                               "Навык К.У.Р.С."},
    "worth": {"en": "Left: P(success) one more point buys. Right: std of the system's outcome measure (margin, "
                    "success level, effectiveness).",
              "ru": "Слева: прирост P(успеха) от ещё одного очка. Справа: ст. отклонение результата "
                    "(степень успеха, У, Эффективность)."},
    "outcome_distributions": {"en": "The check nearest each system's 50% point.",
                              "ru": "Проверка, ближайшая к точке 50%."},
    "crits_and_fumbles": {"en": "Tri-Stat natural 2 / 2X for every die; 2K: RT < 6 and the double-one fault; "
                                "TUN with its optional criticals on; K.U.R.S.: success with a complication.",
                          "ru": "Tri-Stat: естественные 2 / 2X для каждого кубика; 2К: РТ < 6 и две единицы; "
                                "ТУН с необязательными критическими бросками; К.У.Р.С.: успех с осложнением."},
    "dice_families": {"en": "Tri-Stat for every die; TUN for 3d6, 1d20 and 1d6x3.",
                      "ru": "Tri-Stat для каждого кубика; ТУН для 3к6, 1к20 и 1к6x3."},
    "skill_gap": {"en": "Matched trained, armed fighters; A's combat skills raised by the gap.",
                  "ru": "Равные обученные бойцы с оружием; боевые навыки A подняты на разницу."},
    "rounds": {"en": "Matched trained, armed fighters, gap 0.", "ru": "Равные обученные бойцы с оружием, разница 0."},
    "lethality": {"en": "P(someone dies) and P(the fight ends with no death), at each skill gap.",
                  "ru": "P(кто-то погиб) и P(бой кончился без смерти) при каждой разнице в навыках."},
    "damage": {"en": "One attack of a trained, armed fighter on its match (misses count 0).",
               "ru": "Одна атака обученного бойца с оружием по равному (промах — 0)."},
    "variant_effects": {"en": "Every variant of RULES.md against the default ruleset: the largest change of "
                              "P(success) over the check table, and of P(A wins) and P(death) in the matched duel.",
                        "ru": "Каждый вариант из RULES.md против правил по умолчанию: наибольшее изменение "
                              "P(успеха) по таблице проверок и P(победы A), P(смерти) в равном бою."},
}


def save_figure(fig: Figure, path: Path) -> Path:
    """Save a matplotlib figure atomically (format from the suffix) and close it."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format=path.suffix.lstrip("."), dpi=110)
    plt.close(fig)
    return write_atomic(path, buf.getvalue())


def items(section: str) -> list[Item]:
    """The figures of one section, with their tables computed."""
    if section == "checks":
        curves = compare.success_curves()
        return [
            Item("success_curves", curves, plots.success_curves, CAPTIONS["success_curves"]),
            Item("success_absolute", curves, plots.success_absolute, CAPTIONS["success_absolute"]),
            Item("worth", compare.worth_table(), plots.worth, CAPTIONS["worth"]),
            Item("outcome_distributions", compare.outcome_at_fifty(), plots.outcome_distributions,
                 CAPTIONS["outcome_distributions"]),
            Item("crits_and_fumbles", compare.crits_and_fumbles(), plots.crits_and_fumbles, CAPTIONS["crits_and_fumbles"]),
            Item("dice_families", compare.dice_families(), plots.dice_families, CAPTIONS["dice_families"]),
        ]
    if section == "combat":
        tables = lethality.compare()
        return [
            Item("skill_gap", tables["skill_gap"], plots.skill_gap, CAPTIONS["skill_gap"]),
            Item("rounds", tables["rounds"], plots.rounds, CAPTIONS["rounds"]),
            Item("lethality", tables["skill_gap"], plots.lethality, CAPTIONS["lethality"]),
            Item("damage", tables["damage"], plots.damage, CAPTIONS["damage"]),
        ]
    return [Item("variant_effects", compare.variant_effects(), plots.variant_effects, CAPTIONS["variant_effects"])]


def build_report(out: str | Path = "reports", lang: str = "en", sections: Iterable[str] = SECTIONS) -> list[Path]:
    """Write every table (CSV, and the check tables as Markdown), figure (PNG) and ``index.html`` into ``out``."""
    lang = Choice(LANGS).validate("lang", lang)
    sections = [Choice(SECTIONS).validate("sections", s) for s in sections]
    out = Path(out)
    written = _check_tables(out)
    body: list[str] = []
    for section in sections:
        body.append(f"<h2>{TEXT[lang][section]}</h2>")
        if section == "combat":
            body.append(f"<p>{html.escape(TEXT[lang]['matching'])}</p>")
        for item in items(section):
            written.append(write_atomic(out / f"{item.name}.csv", item.table.to_csv(index=False)))
            written.append(save_figure(item.plot(item.table, lang), out / f"{item.name}.png"))
            body.append(_figure_html(item, lang))
    written.append(write_atomic(out / "index.html", _page(lang, body)))
    return written


def _check_tables(out: Path) -> list[Path]:
    written = []
    for system in all_systems():
        rules, args = system.rules(), system.args()
        df = success_table(system, rules, args)
        mode = "dice" if "dice" in df.columns else "mode"
        title = f"# {system.title}: P(success) by {system.value}\n\nRules: {pairs(rules.to_dict())}"
        written.append(write_atomic(out / f"{system.id}_checks.csv", df.to_csv(index=False)))
        written.append(write_atomic(out / f"{system.id}_checks.md",
                                    render(df, "md", title=title, pivot=(system.value, mode, "p_success"))))
    return written


def _rules_line(lang: str) -> str:
    parts = [f"<b>{html.escape(label(lang, 'name', s.id))}</b>: {html.escape(pairs(s.rules().to_dict()))}"
             for s in all_systems()]
    return "<br>".join(parts)


def _figure_html(item: Item, lang: str) -> str:
    alt = html.escape(item.caption[lang])
    return (f'<figure id="{item.name}"><img src="{item.name}.png" alt="{alt}">'
            f"<figcaption>{alt} <a href=\"{item.name}.csv\">{TEXT[lang]['table']}</a></figcaption></figure>")


def _page(lang: str, body: list[str]) -> str:
    t = TEXT[lang]
    return f"""<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(t['title'])}</title>
<style>body{{font-family:sans-serif;max-width:1150px;margin:2em auto;padding:0 1em;color:#222}}
figure{{margin:1.5em 0}} img{{max-width:100%;border:1px solid #ddd}} figcaption{{font-size:0.9em;color:#444}}
.rules{{font-size:0.8em;color:#555}}</style></head>
<body><h1>{html.escape(t['title'])}</h1><p>{html.escape(t['intro'])}</p>
<p class="rules">{t['rules_used']}:<br>{_rules_line(lang)}<br>{t['version']} {__version__}</p>
{chr(10).join(body)}
</body></html>
"""
