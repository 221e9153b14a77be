"""The lab's report: one self-contained ``index.html`` (findings, interactive figures, inline tables with
their CSV), plus every figure as PNG and every table as CSV for rulebooks, in English or Russian, on the
book's setup or the designer's own (``--config``), optionally drawn against a baseline (``--compare``).

>>> import tempfile, pathlib
>>> out = pathlib.Path(tempfile.mkdtemp())
>>> names = {p.name for p in build_report(out, sections=("checks", "tables"))}
>>> {"index.html", "success_curves.png", "success_curves.csv", "kurs_checks.md"} <= names
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import pandas as pd

from analysis.base import __version__
from analysis.base.files import write_atomic
from analysis.base.pool import cores, fork_or_spawn, process_pool, stop_now
from analysis.base.params import Choice
from analysis.engine.assumptions import merged
from analysis.engine.combat import describe_fighter, exchange_assumptions, rests_on
from analysis.engine.results import assumptions_echo
from analysis.fights import lethality
from analysis.fights.setup import Setup
from analysis.front.report import findings
from analysis.front.report.page import data_link, document, esc, findings_html, html_table
from analysis.present import plots
from analysis.present.chart import Chart, side_by_side
from analysis.present.i18n import GLOSSARY, LANGS, dice, field_text, label, number, system_name
from analysis.present.tables import assumed_pairs, pairs, render, success_table
from analysis.systems import SYSTEM_IDS, all_systems, get_system
from analysis.tools import compare, crowds, played
from analysis.tools.house_compare import compare_rules
from analysis.tools.variants import alternatives, rule_alternatives

SECTIONS = ("checks", "worth", "tables", "combat", "lethality", "groups", "rules", "tactics", "played")
PLAYED_SECTIONS = ("combat", "lethality")
COMBAT_TABLES = {"combat": ("skill_gap", "rounds"), "lethality": ("lethality", "hits_to_out")}
"""The tables of :func:`analysis.fights.lethality.compare` each played section draws."""
"""The sections whose duels are played as the setup's ``play`` says; the others' are played by the book (the rule
readings and tactical options as fixed scripts; Played well shows both plays)."""
"""The report's sections in page order; ``house`` is added when a baseline is given."""
_CODE, _AS_CODE = re.compile(r"`([^`]+)`"), r"<code>\1</code>"
"""A command in a glossary text, shown as code."""


@dataclass(frozen=True)
class Item:
    """One figure: its name, section, the table it draws, its kind of model and the systems it shows."""

    name: str
    section: str
    table: str
    model: str
    systems: tuple[str, ...] = SYSTEM_IDS


ITEMS = (
    Item("success_curves", "checks", "curves", "check"),
    Item("success_absolute", "checks", "curves", "check"),
    Item("dice_families", "checks", "dice", "check", ("tristat", "tun")),
    Item("worth", "worth", "worth", "check"),
    Item("swing", "worth", "swing", "check"),
    Item("outcome_distributions", "worth", "outcomes", "check"),
    Item("skill_gap", "combat", "skill_gap", "duel"),
    Item("rounds", "combat", "rounds", "duel"),
    Item("lethality", "lethality", "lethality", "finishing"),
    Item("damage", "lethality", "hits_to_out", "attacks"),
    Item("variant_effects", "rules", "variants", "duel"),
    Item("policy_effects", "tactics", "policies", "duel"),
    Item("crowd", "groups", "crowd", "group", crowds.GROUPED),
    Item("lanchester", "groups", "exponents", "lanchester", crowds.GROUPED),
    Item("played_well", "played", "played", "game", played.decided_systems()),
)

TEXT = {
    "en": {
        "title": "dicelab report: four systems compared",
        "intro": "Exact computations for Tri-Stat dX, the 2K system with the rule of 1 and 6, TUN and K.U.R.S. on the "
                 "setup below. Each section opens with what its numbers say; hover a figure for its values; every "
                 "table downloads as CSV. The rules each system is built from are the project's own reference, "
                 "docs/rules/<system>.md (dicelab rules <system>).",
        "contents": "Contents", "setup": "Setup", "glossary": "Terms and abbreviations", "table": "table (CSV)",
        "system": "system", "house_rules": "house rules (constants)",
        "a": "fighter A", "b": "fighter B", "page": "rules reference", "book": "the book's rules",
        "rules_col": "rules (changed from the book)", "legend": "what each name means",
        "version": "dicelab version", "made_by": "made by", "meaning": "meaning", "field": "field",
        "assumptions": "lab assumptions",
        "variant": "reading", "checks": "Success curves", "worth": "The worth of a point and how swingy a check is",
        "tables": "Difficulty tables, criticals and fumbles", "combat": "Who wins and how long it takes",
        "lethality": "How fights end: hits to go down and how often a fight kills",
        "rules": "Rule readings: what each variant moves", "tactics": "Tactical options: which are worth taking",
        "groups": "Groups: how much numbers matter",
        "model_group": "Exact (absorbing Markov chain over each side's conditions) for fights of up to {exact} "
                       "fighters; Monte Carlo beyond ({n:,} fights per point, root seed {seed}), each point's hover "
                       "and the table say which.",
        "model_lanchester": "The lab's reading (no seed gives one): Lanchester's exponent k, fitted to Monte Carlo "
                            "mirror fights of {fighter} sides of {sizes}, each played both ways ({n:,} fights each, "
                            "root seed {seed}); the bar is k, the hover its 95% interval and each size pair's own k. "
                            "k = 1 is the linear law, k = 2 the square law (the two lines).",
        "played": "Played well: the book's scripts against the equilibrium",
        "model_game": "Exact: the duel's chain as a zero-sum stochastic game over the decisions each system's rules "
                      "give (value P(A wins) − P(B wins), solved to 1e-13); dashed, both sides by their fighters' "
                      "policies (the book); solid, both at the equilibrium (playing well).",
        "options_title": "What each option is worth played well (the setup's duel, no gap)",
        "kind_col": "what", "side_col": "side", "name_col": "option or decision", "share_col": "share taken",
        "worth_col": "worth (value lost if forbidden)", "text_col": "simple rule", "keeps_col": "share of the gain kept",
        "kinds_played": {"decision": "decision", "dominated": "dominated", "rule": "simple rule"},
        "fair_title": "Fair counts: how many of B make a fair fight against one A",
        "fair_count": "fair count", "p_at": "P(A wins) at the fair count", "p_before": "one fewer",
        "method": "computed", "fair_note": "note",
        "methods": {"exact": "exact", "monte_carlo": "Monte Carlo", "mixed": "exact, then Monte Carlo"},
        "none_up_to": "A still wins more often than not against {max}",
        "readings_title": "The group rules read another way: {a} against {b} under each reading",
        "reading_col": "reading", "p_against": "P(A wins) against {count}", "k_col": "exponent k",
        "k_ci": "95% interval",
        "house": "{mine} against {base}: checks, archetype duels and the worth of +1",
        "special": "Special results at the standard check (nearest the 50% point)",
        "difficulty": "P(success) by {value}", "dice_col": "dice", "value_col": "value",
        "model_check": "Exact (convolution of the dice).",
        "model_duel": "Exact (absorbing Markov chain over both fighters' conditions).",
        "model_attacks": "Exact (Markov chain over the defender's condition track; A attacks, B never strikes back).",
        "model_finishing": "Exact (absorbing Markov chain over both fighters' conditions; then the winner's attacks on "
                           "the helpless loser, one by one).",
        "finished": "after_out=stop (0) or after_out=finish (1 to {n} attacks), killed = {lethal}",
        "fighters": "A = {a}, B = {b}", "ended": "after_out={after}, killed = {lethal}",
        "play": "played: {play}",
        "play_setup": "The combat figures' duels are played: {play} (book: the fighters' policies; best: A's best "
                      "response; equilibrium: both play well).",
        "plays": {"book": "book", "best": "best", "equilibrium": "equilibrium"},
        "changes": "What differs", "kind": "kind", "checks_diff": "P(success) of the standard check",
        "duels_diff": "Each archetype against itself ({ended})", "worth_diff": "P(success) bought by +1",
        "archetype": "archetype", "diff": "Δ", "p_a_wins": "P(A wins)", "p_killed": "P(killed)",
        "mean_rounds": "mean rounds", "note": "note", "no_changes": "Same rules as {base}.", "all_systems": "Every system",
        "same_checks": "The same P(success) at every value.",
        "names": {"mine": "mine", "default": "default", "baseline": "baseline"},
        "kinds": {},
    },
    "ru": {
        "title": "Отчёт dicelab: сравнение четырёх систем",
        "intro": "Точные расчёты для Tri-Stat dX, системы 2К с правилом 1 и 6, ТУН и К.У.Р.С. на настройке ниже. "
                 "Каждый раздел начинается с выводов из его чисел; наведите курсор на рисунок, чтобы увидеть "
                 "значения; каждую таблицу можно скачать в CSV. Правила систем описаны в собственном справочнике "
                 "проекта: docs/rules/README.md и страница каждой системы рядом с ним.",
        "contents": "Содержание", "setup": "Настройка", "glossary": "Термины и сокращения", "table": "таблица (CSV)",
        "system": "система", "rules_col": "правила (отличия от книги)", "legend": "что значит каждое имя",
        "house_rules": "домашние правила (константы)", "a": "боец A", "b": "боец B", "page": "справочник правил",
        "assumptions": "допущения лаборатории",
        "book": "правила книги", "version": "версия dicelab", "made_by": "команда", "meaning": "смысл",
        "field": "поле", "variant": "прочтение", "checks": "Кривые успеха",
        "worth": "Цена очка и роль случая в проверке", "tables": "Таблицы сложности, критические успехи и провалы",
        "combat": "Кто побеждает и как долго длится бой",
        "lethality": "Чем кончается бой: сколько ударов до выхода из строя и насколько бой смертелен",
        "rules": "Прочтения правил: что меняет каждый вариант",
        "tactics": "Тактические приёмы: какие выгодны",
        "groups": "Группы: сколько решает численность",
        "model_group": "Точный расчёт (поглощающая марковская цепь по состояниям бойцов каждой стороны) для боёв до "
                       "{exact} бойцов; дальше Монте-Карло ({n:,} боёв на точку, корневое зерно {seed}); подсказка "
                       "каждой точки и таблица говорят, чем она посчитана.",
        "model_lanchester": "Прочтение лаборатории (в книгах его нет): показатель Ланчестера k, подобранный по "
                            "зеркальным боям методом Монте-Карло — стороны из {fighter} численностью {sizes}, каждая "
                            "пара в обе стороны ({n:,} боёв, корневое зерно {seed}); полоса — k, в подсказке его "
                            "95%-интервал и k каждой пары. k = 1 — линейный закон, k = 2 — квадратичный (две линии).",
        "played": "Лучшая игра: сценарии книги против равновесия",
        "model_game": "Точный расчёт: цепь поединка как антагонистическая стохастическая игра по решениям, которые "
                      "дают правила системы (цена P(победы A) − P(победы B), решена с точностью 1e-13); пунктир — обе "
                      "стороны по своим политикам (по книге), сплошная — обе в равновесии (лучшая игра).",
        "options_title": "Чего стоит каждый приём при лучшей игре (бой настройки, без разницы в навыках)",
        "kind_col": "что", "side_col": "сторона", "name_col": "приём или решение", "share_col": "доля выбора",
        "worth_col": "цена (потеря при запрете)", "text_col": "простое правило", "keeps_col": "доля сохранённого выигрыша",
        "kinds_played": {"decision": "решение", "dominated": "доминируемый", "rule": "простое правило"},
        "fair_title": "Равный бой: сколько B уравнивают шансы против одного A",
        "fair_count": "равное число", "p_at": "P(победы A) при этом числе", "p_before": "на одного меньше",
        "method": "расчёт", "fair_note": "примечание",
        "methods": {"exact": "точно", "monte_carlo": "Монте-Карло", "mixed": "точно, затем Монте-Карло"},
        "none_up_to": "A чаще побеждает даже против {max}",
        "readings_title": "Групповые правила в другом прочтении: {a} против {b} в каждом прочтении",
        "reading_col": "прочтение", "p_against": "P(победы A) против {count}", "k_col": "показатель k",
        "k_ci": "95%-интервал",
        "house": "{mine} против {base}: проверки, бои архетипов и цена +1",
        "special": "Особые результаты стандартной проверки (около точки 50%)",
        "difficulty": "P(успеха) по значению «{value}»", "dice_col": "кубики", "value_col": "значение",
        "model_check": "Точный расчёт (свёртка кубиков).",
        "model_duel": "Точный расчёт (поглощающая марковская цепь по состояниям обоих бойцов).",
        "model_attacks": "Точный расчёт (марковская цепь по треку состояния защитника; A атакует, B не отвечает).",
        "model_finishing": "Точный расчёт (поглощающая марковская цепь по состояниям обоих бойцов, затем удары "
                           "победителя по беспомощному, один за другим).",
        "finished": "after_out=stop (0) или after_out=finish (от 1 до {n} ударов), погибшим считается боец {word} "
                    "(lethal_at={lethal})",
        "fighters": "A = {a}, B = {b}", "ended": "after_out={after}, погибшим считается боец {word} (lethal_at={lethal})",
        "play": "игра: {play}",
        "play_setup": "Бои в разделах о поединках сыграны так: {play} (play=book — по политикам бойцов, play=best — "
                      "лучший ответ A, play=equilibrium — обе стороны играют лучшим образом).",
        "plays": {"book": "по книге (play=book)", "best": "лучший ответ A (play=best)",
                  "equilibrium": "равновесие (play=equilibrium)"},
        "changes": "Что отличается", "kind": "вид", "checks_diff": "P(успеха) стандартной проверки",
        "duels_diff": "Каждый архетип против себя ({ended})", "worth_diff": "Прирост P(успеха) от +1",
        "archetype": "архетип", "diff": "Δ", "p_a_wins": "P(победы A)", "p_killed": "P(хотя бы один погиб)",
        "mean_rounds": "среднее число раундов", "note": "примечание", "no_changes": "Те же правила, что у {base}.",
        "all_systems": "Все системы", "same_checks": "P(успеха) та же при каждом значении.",
        "names": {"mine": "моя настройка", "default": "по умолчанию", "baseline": "базовая"},
        "kinds": {"variant": "прочтение", "constant": "число книги", "option": "параметр боя"},
    },
}

CAPTIONS = {
    "success_curves": {"en": "P(success) against the modifier from each system's 50% point, at each system's own dice.",
                       "ru": "P(успеха) от модификатора относительно точки 50% каждой системы, на её собственных "
                             "кубиках."},
    "success_absolute": {"en": "The same curves in each system's own terms: Tri-Stat target, 2K action rating, TUN "
                               "limit, K.U.R.S. skill.",
                         "ru": "Те же кривые в терминах систем: Цель Tri-Stat, Рейтинг действия 2К, Предел ТУН, "
                               "Навык К.У.Р.С."},
    "dice_families": {"en": "Tri-Stat for every campaign die; TUN for each dice mode (3d6, 1d20, 1d6x3).",
                      "ru": "Tri-Stat для каждого кубика кампании; ТУН для каждого режима кубиков (3к6, 1к20, 1к6×3)."},
    "worth": {"en": "Percentage points of P(success) one more point buys, against the modifier from the 50% point.",
              "ru": "Сколько процентных пунктов P(успеха) даёт ещё одно очко, от модификатора относительно точки 50%."},
    "swing": {"en": "How many points of each system's own value (target, action rating, limit, skill) separate a "
                    "10% check from a 90% one, at its own dice: few points, and every point matters; many, and the "
                    "dice decide.",
              "ru": "Сколько очков собственной шкалы системы (Цель, Рейтинг действия, Предел, Навык) отделяют "
                    "проверку на 10% от проверки на 90%, на её собственных кубиках: мало очков — важно каждое очко; "
                    "много — решают кубики."},
    "outcome_distributions": {"en": "The outcome distribution of the check nearest each system's 50% point.",
                              "ru": "Распределение результата проверки, ближайшей к точке 50%."},
    "skill_gap": {"en": "P(A wins) against the hit edge (left) and against the points of A's combat skills over B's "
                        "(right).",
                  "ru": "P(победы A) от перевеса в попаданиях (слева) и от очков боевых навыков A сверх B (справа)."},
    "rounds": {"en": "P(the first fighter goes out in round r), no skill gap.",
               "ru": "P(первый боец выбывает в раунде r), без разницы в навыках."},
    "lethality": {"en": "Left: P(at least one fighter ends at the killed level) against the attacks the winner may "
                        "make on the helpless loser, one line per system, no skill gap. Right: how often the deciding "
                        "blow alone leaves the loser at that level, per decided fight.",
                  "ru": "Слева: P(хотя бы один боец кончает бой на уровне гибели) в зависимости от числа ударов, "
                        "которые победитель может нанести беспомощному, по линии на систему, без разницы в навыках. "
                        "Справа: как часто один решающий удар оставляет проигравшего на этом уровне, среди решённых "
                        "боёв."},
    "damage": {"en": "P(B is out after at most k of A's damaging hits (left) or attacks (right)): the defender's "
                     "health or condition track counted in hits.",
               "ru": "P(B выведен из строя не более чем за k ранящих ударов (слева) или атак (справа) A): здоровье или "
                     "трек состояния защитника, посчитанный в ударах."},
    "variant_effects": {"en": "Every rule reading against the setup's ruleset, signed; one scale per measure for all "
                              "systems; rows in the systems' order, then each ruleset's fields as declared.",
                        "ru": "Каждое прочтение правил против правил настройки, со знаком; одна шкала на величину для "
                              "всех систем; строки по системам, затем по порядку полей набора правил."},
    "policy_effects": {"en": "A takes the option, B stays plain; signed changes against the plain duel.",
                       "ru": "A выбирает приём, B — без приёмов; изменения со знаком против обычного боя."},
    "played_well": {"en": "P(A wins) (left) and mean rounds (right) against A's skill gap, in each system whose duel is "
                          "solved as a game.",
                    "ru": "P(победы A) (слева) и среднее число раундов (справа) от разницы в навыках A, в каждой "
                          "системе, чей поединок решён как игра."},
    "crowd": {"en": "P(side A wins): one trained_armed against 1 to 5 novice_armed, in each system that models group "
                    "fights.",
              "ru": "P(победы стороны A): один trained_armed против 1–5 novice_armed, в каждой системе, где "
                    "смоделированы групповые бои."},
    "lanchester": {"en": "How steeply a side's strength grows with its count: the larger k, the fewer fighters the "
                         "larger side loses and the more numbers decide a fight.",
                   "ru": "Как круто сила стороны растёт с её численностью: чем больше k, тем меньше бойцов теряет "
                         "большая сторона и тем сильнее численность решает бой."},
}

SPECIAL_HEAD = {"en": {"p_success": "P(success)", "p_critical": "P(critical)", "p_fumble": "P(fumble)",
                       "p_equipment_fault": "P(equipment fault)", "p_complication": "P(success with a complication)"},
                "ru": {"p_success": "P(успеха)", "p_critical": "P(крит. успеха)", "p_fumble": "P(критического провала)",
                       "p_equipment_fault": "P(отказа снаряжения)", "p_complication": "P(успеха с осложнением)"}}


def compute(setup: Setup, sections: Iterable[str]) -> dict[str, pd.DataFrame]:
    """Every table the ``sections`` need, for one setup.  Its independent parts (:data:`PARTS`) are computed at
    once on the machine's cores, the longest first; each part is deterministic (its Monte Carlo seeded), so the
    tables do not depend on how the parts were shared out."""
    sections = set(sections)
    todo = [part for part, needs, _ in PARTS if sections & needs]
    n = min(cores(), len(todo))
    if n <= 1:
        done = {part: part(setup, sections) for part in todo}
    else:
        longest = [part for part, needs, _ in sorted(PARTS, key=lambda row: -row[2]) if sections & needs]
        pool = process_pool(n, fork_or_spawn())
        try:
            done = dict(zip(longest, pool.map(_part, longest, [setup] * len(longest), [sections] * len(longest))))
        except BaseException:
            stop_now(pool)
            raise
        pool.shutdown()
    t: dict[str, pd.DataFrame] = {}
    for part in todo:
        t.update(done[part])
    return t


def _part(part: Callable[[Setup, set[str]], dict[str, pd.DataFrame]], setup: Setup,
          sections: set[str]) -> dict[str, pd.DataFrame]:
    """One part of :func:`compute`, in a worker process."""
    return part(setup, sections)


def _checks(setup: Setup, sections: set[str]) -> dict[str, pd.DataFrame]:
    t = {"curves": compare.success_curves(setup), "dice": compare.dice_families(setup),
         "worth": compare.worth_table(setup), "outcomes": compare.outcome_at_fifty(setup),
         "crits": compare.crits_and_fumbles(setup)}
    t["swing"] = compare.swing_table(t["curves"])
    for s in all_systems():
        t[f"checks_{s.id}"] = success_table(s, setup.ruleset(s.id), s.args())
    return t


def _combat(setup: Setup, sections: set[str]) -> dict[str, pd.DataFrame]:
    return lethality.compare(setup, tables=[name for section, names in COMBAT_TABLES.items() if section in sections
                                            for name in names])


def _variants(setup: Setup, sections: set[str]) -> dict[str, pd.DataFrame]:
    return {"variants": compare.variant_effects(setup)}


def _policies(setup: Setup, sections: set[str]) -> dict[str, pd.DataFrame]:
    return {"policies": compare.policy_effects(setup)}


def _ranges(setup: Setup, sections: set[str]) -> dict[str, pd.DataFrame]:
    return {"assumption_ranges": compare.assumption_ranges(setup)}


def _groups(setup: Setup, sections: set[str]) -> dict[str, pd.DataFrame]:
    return crowds.tables(setup)


def _played(setup: Setup, sections: set[str]) -> dict[str, pd.DataFrame]:
    return played.tables(setup)


PARTS: tuple[tuple[Callable[[Setup, set[str]], dict[str, pd.DataFrame]], set[str], float], ...] = (
    (_checks, {"checks", "worth", "tables"}, 0.5),
    (_combat, {"combat", "lethality"}, 3.7),
    (_variants, {"rules"}, 12.0),
    (_policies, {"tactics"}, 2.2),
    (_ranges, {"combat", "lethality", "tactics"}, 2.8),
    (_groups, {"groups"}, 15.0),
    (_played, {"played"}, 35.0),
)
"""The report's independent computations, in the order their tables are listed: the function, the sections that
need it and its CPU seconds on the default setup (measured 2026-12-03, the played part 2026-12-04: the longest
start first)."""


def rules_summary(setup: Setup, system_id: str, lang: str) -> str:
    """``die=8, shock_rule=true`` (the fields changed from the book), or "the book's rules"."""
    changed = setup.changed(system_id)
    return pairs(changed) if changed else TEXT[lang]["book"]


def caption(item: Item, setup: Setup, lang: str) -> str:
    """What the figure shows, the model, and every system's rules (and fighters) and the lab's assumptions that
    made it."""
    t = TEXT[lang]
    lines: dict[str, list[str]] = {}
    for sid in item.systems:
        line = rules_summary(setup, sid, lang)
        if item.model in ("duel", "attacks", "finishing", "game"):
            a, b = setup.fighters(sid)
            rules = lethality.duel_rules(setup.ruleset(sid))
            line += f"; {t['fighters'].format(a=a.name, b=b.name)}; "
            word = findings.LEVEL_WORDS[lang][rules.lethal_at]
            line += t["finished"].format(n=rules.finish_attacks, lethal=rules.lethal_at, word=word) \
                if item.model == "finishing" else t["ended"].format(after=rules.after_out, lethal=rules.lethal_at, word=word)
            if item.model in ("duel", "finishing"):
                play = setup.play if item.section in PLAYED_SECTIONS else "book"
                line += "; " + t["play"].format(play=t["plays"][play])
        rests = assumed(item, setup, sid)
        line += f"; {t['assumptions']}: {assumed_pairs(rests)}" if rests else ""
        lines.setdefault(line, []).append(sid)
    parts = [CAPTIONS[item.name][lang], t[f"model_{item.model}"].format(
        exact=crowds.EXACT_MAX, n=crowds.N, seed=crowds.SEED, fighter=crowds.MIRROR,
        sizes=", ".join(f"{m}:{k}" for m, k in crowds.SIZES))]
    for line, sids in lines.items():
        who = t["all_systems"] if len(sids) == len(item.systems) > 1 else ", ".join(system_name(lang, s) for s in sids)
        parts.append(f"{who}: {line}.")
    return " ".join(parts)


def assumed(item: Item, setup: Setup, system_id: str) -> dict[str, Any]:
    """The lab's assumptions a figure's numbers for one system rest on: its checks; its exchange (A attacks, B
    never strikes back); or its duels, with every rule reading (``variant_effects``) or every tactical option of A
    (``policy_effects``) the figure tries."""
    system, rules = get_system(system_id), setup.ruleset(system_id)
    if item.model == "check":
        return assumptions_echo(system_id, rules.to_dict())
    if item.model in ("group", "lanchester"):
        return crowds.assumed(system, rules, item.name)
    rules = lethality.duel_rules(rules)
    fighter_a = setup.fighters(system_id)[0]
    a, b = (describe_fighter(f, rules) for f in setup.fighters(system_id))
    if item.model == "attacks":
        return exchange_assumptions(system_id, rules.to_dict(), a, b)
    uses = [(rules, a)]
    if item.name == "variant_effects":
        uses += [(rules.replace(**{n: v}), a) for n, v, _ in rule_alternatives(system, rules)]
    if item.name == "policy_effects":
        uses += [(rules, {**a, n: v}) for n, v, _ in alternatives(system.Fighter.specs("policy"), fighter_a)]
    return merged([rests_on(system_id, r.to_dict(), fa, b) for r, fa in uses])


def _chart(item: Item, tables: dict[str, pd.DataFrame], setup: Setup, lang: str) -> Chart:
    return plots.CHARTS[item.name](tables[item.table], lang, caption(item, setup, lang))


def build_report(out: str | Path = "reports", lang: str = "en", sections: Iterable[str] = SECTIONS,
                 setup: Setup | None = None, baseline: Setup | None = None, command: str = "",
                 tables: Mapping[str, pd.DataFrame] | None = None) -> list[Path]:
    """Write ``index.html``, every figure (PNG) and table (CSV; the check tables also as Markdown) into ``out``.

    With ``baseline`` every figure is drawn twice, side by side on shared scales, and a section compares
    the two setups' rules (checks, archetype duels, worth of +1).  ``tables`` are the setup's tables already
    computed (``compute(setup, sections)``: none depends on the language), so the same numbers can be written
    in another language without computing them again.
    """
    lang = Choice(LANGS).validate("lang", lang)
    sections = [Choice(SECTIONS).validate("sections", s) for s in sections]
    setup = _named(setup or Setup.build(name="default"), lang)
    baseline = _named(baseline, lang) if baseline is not None else None
    out = Path(out)
    mine = dict(tables) if tables is not None else compute(setup, sections)
    base = compute(baseline, sections) if baseline is not None else None
    written: list[Path] = []
    body: list[str] = []
    titles: list[tuple[str, str]] = []
    for section in sections:
        title = TEXT[lang][section]
        titles.append((section, title))
        html_parts = [f'<h2 id="{section}">{esc(title)}</h2>', findings_html(_findings(section, mine, lang))]
        if section == "tables":
            html_parts.append(_tables_html(mine, setup, lang, out, written))
        for item in (i for i in ITEMS if i.section == section):
            chart = _chart(item, mine, setup, lang)
            table = mine[item.table]
            if base is not None:
                chart = side_by_side(chart, _chart(item, base, baseline, lang), (setup.name, baseline.name))
                table = pd.concat([table.assign(setup=setup.name), base[item.table].assign(setup=baseline.name)],
                                  ignore_index=True)
            csv = table.to_csv(index=False)
            written.append(write_atomic(out / f"{item.name}.csv", csv))
            written.append(write_atomic(out / f"{item.name}.png", chart.png()))
            html_parts.append(_figure_html(item.name, chart, csv, lang))
        if section == "rules":
            html_parts.append(_legend_html(mine["variants"], "variant", "field", lang))
        if section == "groups":
            html_parts.append(_fair_html(mine, lang, out, written))
        if section == "played":
            html_parts.append(_options_html(mine, lang, out, written))
        body.append("\n".join(html_parts))
    if baseline is not None:
        title = TEXT[lang]["house"].format(mine=setup.name, base=baseline.name)
        titles.append(("house", title))
        body.append(_house_html(setup, baseline, lang, title))
    head = _head_html(setup, baseline, lang, titles)
    foot = f'<p class="setup">{esc(TEXT[lang]["version"])} {__version__}'
    foot += f"; {esc(TEXT[lang]['made_by'])}: <code>{esc(command)}</code></p>" if command else "</p>"
    written.append(write_atomic(out / "index.html", document(lang, TEXT[lang]["title"], head, "\n".join(body) + foot)))
    return written


def _named(setup: Setup, lang: str) -> Setup:
    """The setup with its default name (mine, default, baseline) in ``lang``."""
    return replace(setup, name=TEXT[lang]["names"].get(setup.name, setup.name))


def _findings(section: str, tables: dict[str, pd.DataFrame], lang: str) -> list[str]:
    return [f.text for f in findings.SECTION_FINDINGS[section](tables, lang)]


def _figure_html(name: str, chart: Chart, csv: str, lang: str) -> str:
    return (f'<figure id="fig-{name}">{chart.html(f"plot-{name}")}<figcaption>{esc(chart.caption)} '
            f"{data_link(f'{name}.csv', csv, TEXT[lang]['table'])}</figcaption></figure>")


def _head_html(setup: Setup, baseline: Setup | None, lang: str, titles: Sequence[tuple[str, str]]) -> str:
    t = TEXT[lang]
    parts = [f"<p>{esc(t['intro'])}</p>", f'<h2 id="setup">{esc(t["setup"])}</h2>']
    for s in (setup, baseline) if baseline is not None else (setup,):
        if baseline is not None:
            parts.append(f"<h3>{esc(s.name)}</h3>")
        parts.append(_setup_html(s, lang))
    gloss = "".join(f"<dt><b>{esc(k)}</b></dt><dd>{_CODE.sub(_AS_CODE, esc(v))}</dd>" for k, v in GLOSSARY[lang])
    parts.append(f'<details class="glossary"><summary>{esc(t["glossary"])}</summary><dl>{gloss}</dl></details>')
    links = "".join(f'<li><a href="#{sid}">{esc(title)}</a></li>' for sid, title in titles)
    parts.append(f'<nav><h2>{esc(t["contents"])}</h2><ol>{links}</ol></nav>')
    return "\n".join(parts)


def _setup_html(setup: Setup, lang: str) -> str:
    t = TEXT[lang]
    rows = []
    for sid in SYSTEM_IDS:
        echo = setup.echo()[sid]
        a, b = setup.fighters(sid)
        rows.append({"system": system_name(lang, sid), "rules": rules_summary(setup, sid, lang),
                     "house": pairs(echo["house_rules"]) or "—", "a": a.name, "b": b.name,
                     "page": f"docs/rules/{sid}.md"})
    df = pd.DataFrame(rows)
    cols = [("system", t["system"], "text"), ("rules", t["rules_col"], "text"), ("house", t["house_rules"], "text"),
            ("a", t["a"], "text"), ("b", t["b"], "text"), ("page", t["page"], "text")]
    changed = pd.DataFrame([{"system": sid, "field": k} for sid in SYSTEM_IDS for k in setup.changed(sid)])
    legend = _legend_html(changed, "field", "field", lang) if len(changed) else ""
    source = f"<p>{esc(setup.source)}</p>" if setup.source else ""
    play = f'<p class="play">{esc(t["play_setup"].format(play=t["plays"][setup.play]))}</p>'
    return f'<div class="setup">{source}{html_table(df, cols, lang)}{play}{legend}</div>'


def _legend_html(df: pd.DataFrame, shown: str, field_col: str, lang: str) -> str:
    """What each listed rule field means, in ``lang`` (the variant names stay as a designer types them)."""
    t = TEXT[lang]
    rows = []
    seen = set()
    for sid, shown_name, name in zip(df["system"], df[shown], df[field_col]):
        if (sid, shown_name) in seen:
            continue
        seen.add((sid, shown_name))
        help_text = {i.name: i.help for i in get_system(sid).Rules.describe()}.get(name, "")
        rows.append({"system": system_name(lang, sid), "name": shown_name,
                     "meaning": field_text(lang, sid, name, help_text)})
    cols = [("system", t["system"], "text"), ("name", t["variant"] if shown == "variant" else t["field"], "code"),
            ("meaning", t["meaning"], "text")]
    return f'<details><summary>{esc(t["legend"])}</summary>{html_table(pd.DataFrame(rows), cols, lang)}</details>'


def _tables_html(t: dict[str, pd.DataFrame], setup: Setup, lang: str, out: Path, written: list[Path]) -> str:
    """The special-results table and each system's difficulty table, inline, each with its CSV."""
    words = TEXT[lang]
    crits = t["crits"].copy()
    crits["system_name"] = [system_name(lang, s) for s in crits["system"]]
    crits["dice_shown"] = [dice(lang, d) for d in crits["dice"]]
    cols = [("system_name", words["system"], "text"), ("dice_shown", words["dice_col"], "text"),
            ("value", words["value_col"], "int")] + [(k, h, "odds") for k, h in SPECIAL_HEAD[lang].items()]
    csv = t["crits"].to_csv(index=False)
    written.append(write_atomic(out / "crits_and_fumbles.csv", csv))
    parts = [f'<h3 id="special">{esc(words["special"])}</h3>', html_table(crits, cols, lang),
             data_link("crits_and_fumbles.csv", csv, words["table"]), '<div class="tables">']
    for s in all_systems():
        df = t[f"checks_{s.id}"]
        csv = df.to_csv(index=False)
        title = f"# {s.title}: P(success) by {s.value}\n\nRules: {pairs(setup.ruleset(s.id).to_dict())}"
        mode = "dice" if "dice" in df.columns else "mode"
        written.append(write_atomic(out / f"{s.id}_checks.csv", csv))
        written.append(write_atomic(out / f"{s.id}_checks.md", render(df, "md", title=title,
                                                                       pivot=(s.value, mode, "p_success"))))
        parts.append(f'<div><h3 id="checks-{s.id}">{esc(system_name(lang, s.id))}: '
                     f'{esc(words["difficulty"].format(value=label(lang, "value", s.id)))}</h3>'
                     f'<div class="scroll">{_difficulty(df, s.id, s.value, mode, lang)}</div>'
                     f"{data_link(f'{s.id}_checks.csv', csv, words['table'])}</div>")
    return "\n".join(parts) + "</div>"


def _fair_html(t: dict[str, pd.DataFrame], lang: str, out: Path, written: list[Path]) -> str:
    """The fair-count table inline, with its CSV and the CSV of the mirror fights the exponent is fitted to."""
    words = TEXT[lang]
    fair = t["fair_counts"].copy()
    fair["system_name"] = [system_name(lang, s) for s in fair["system"]]
    cols = [("system_name", words["system"], "text"), ("a", "A", "code"), ("b", "B", "code"),
            ("fair_count", words["fair_count"], "int"), ("p_at", words["p_at"], "odds"),
            ("p_a_wins_before", words["p_before"], "odds"), ("method_shown", words["method"], "text"),
            ("note_shown", words["fair_note"], "text")]
    fair = fair.rename(columns={"p_a_wins_at": "p_at"})
    fair["method_shown"] = [words["methods"][m] for m in fair["method"]]
    fair["note_shown"] = [words["none_up_to"].format(max=crowds.MAX_COUNT) if pd.isna(c) else ""
                          for c in fair["fair_count"]]
    csv, points = t["fair_counts"].to_csv(index=False), t["exponent_points"].to_csv(index=False)
    written.append(write_atomic(out / "fair_counts.csv", csv))
    written.append(write_atomic(out / "exponent_points.csv", points))
    return (f'<h3 id="fair-counts">{esc(words["fair_title"])}</h3>{html_table(fair, cols, lang)}'
            f"{data_link('fair_counts.csv', csv, words['table'])} "
            f"{data_link('exponent_points.csv', points, words['table'] + ': k')}"
            f"{_readings_html(t['group_readings'], lang, out, written)}")


def _readings_html(df: pd.DataFrame, lang: str, out: Path, written: list[Path]) -> str:
    """Each system's readings of its group rules side by side (2K's economy and order), with
    their CSV; nothing when no system has another reading."""
    if df.empty:
        return ""
    words = TEXT[lang]
    shown = df.copy()
    shown["system_name"] = [system_name(lang, s) for s in shown["system"]]
    shown["interval"] = [f"{number(lang, lo, 2)}–{number(lang, hi, 2)}" for lo, hi in zip(shown["k_lo"], shown["k_hi"])]
    cols = [("system_name", words["system"], "text"), ("reading", words["reading_col"], "code"),
            ("p_a_wins", words["p_against"].format(count=int(df["count"].max())), "odds"),
            ("fair_count", words["fair_count"], "int"), ("k", words["k_col"], "num"),
            ("interval", words["k_ci"], "text")]
    csv = df.to_csv(index=False)
    written.append(write_atomic(out / "group_readings.csv", csv))
    title = words["readings_title"].format(a=crowds.HERO, b=crowds.MOOK)
    return (f'<h3 id="group-readings">{esc(title)}</h3>{html_table(shown, cols, lang)}'
            f"{data_link('group_readings.csv', csv, words['table'])}")


def _options_html(t: dict[str, pd.DataFrame], lang: str, out: Path, written: list[Path]) -> str:
    """Each decision's share and worth, the dominated policies and the simple rules, inline with their CSV."""
    words = TEXT[lang]
    df = t["played_options"].copy()
    df["system_name"] = [system_name(lang, s) for s in df["system"]]
    df["kind_shown"] = [words["kinds_played"][k] for k in df["kind"]]
    df["text"] = df["text"].fillna("—")
    cols = [("system_name", words["system"], "text"), ("kind_shown", words["kind_col"], "text"),
            ("side", words["side_col"], "text"), ("name", words["name_col"], "code"),
            ("share_taken", words["share_col"], "odds"), ("worth", words["worth_col"], "num"),
            ("text", words["text_col"], "code"), ("share_of_gain", words["keeps_col"], "odds")]
    csv = t["played_options"].to_csv(index=False)
    written.append(write_atomic(out / "played_options.csv", csv))
    return (f'<h3 id="played-options">{esc(words["options_title"])}</h3>{html_table(df, cols, lang)}'
            f"{data_link('played_options.csv', csv, words['table'])}")


def _difficulty(df: pd.DataFrame, system_id: str, value: str, mode: str, lang: str) -> str:
    """P(success) by value: one column per dice mode, or (one mode) the special results beside it."""
    modes = list(dict.fromkeys(df[mode]))
    if len(modes) > 1:
        wide = df.pivot(index=value, columns=mode, values="p_success")[modes].reset_index()
        cols = [(value, label(lang, "value", system_id), "int")] + [(m, dice(lang, m), "odds") for m in modes]
        return html_table(wide, cols, lang)
    cols = [(value, label(lang, "value", system_id), "int")]
    cols += [(k, h, "odds") for k, h in SPECIAL_HEAD[lang].items() if k in df.columns]
    return html_table(df, cols, lang)


def _house_html(setup: Setup, baseline: Setup, lang: str, title: str) -> str:
    """Per system: what differs, then the check table, the archetypes' duels and the worth of +1, side by side."""
    t = TEXT[lang]
    mine = {sid: setup.ruleset(sid) for sid in SYSTEM_IDS}
    comparison = compare_rules(mine, {sid: baseline.ruleset(sid) for sid in SYSTEM_IDS})
    names = (setup.name, baseline.name)
    parts = [f'<h2 id="house">{esc(title)}</h2>',
             findings_html([f.text for f in findings.house(comparison, lang, names)])]
    for sid, c in comparison.items():
        parts.append(f"<h3>{esc(system_name(lang, sid))}</h3>")
        if c["assumptions"]:
            parts.append(f"<p>{esc(t['assumptions'])}: <code>{esc(assumed_pairs(c['assumptions']))}</code></p>")
        if not c["changes"]:
            parts.append(f"<p>{esc(t['no_changes'].format(base=baseline.name))}</p>")
            continue
        changes = pd.DataFrame(c["changes"])
        changes["meaning"] = [field_text(lang, sid, f, h) for f, h in zip(changes["field"], changes["help"])]
        changes["kind"] = [t["kinds"].get(k, k) for k in changes["kind"]]
        parts.append(html_table(changes, [("field", t["field"], "code"), ("kind", t["kind"], "text"),
                                          ("book", baseline.name, "code"), ("house", setup.name, "code"),
                                          ("meaning", t["meaning"], "text")], lang))
        pair = [("book", baseline.name, "odds"), ("house", setup.name, "odds"), ("diff", t["diff"], "pp")]
        checks = c["checks"][c["checks"]["diff"].abs().fillna(1) > 1e-12]
        parts.append(f"<h4>{esc(t['checks_diff'])}</h4>" + (
            html_table(checks, [("value", label(lang, "value", sid), "int"), *pair], lang) if len(checks)
            else f"<p>{esc(t['same_checks'])}</p>"))
        ended = t["ended"].format(after=mine[sid].after_out, lethal=mine[sid].lethal_at,
                                  word=findings.LEVEL_WORDS[lang][mine[sid].lethal_at])
        duel_cols = [("archetype", t["archetype"], "text")]
        for key in ("p_a_wins", "p_killed", "mean_rounds"):
            kind = "num" if key == "mean_rounds" else "odds"
            duel_cols += [(f"{key}_book", f"{t[key]}: {baseline.name}", kind),
                          (f"{key}_house", f"{t[key]}: {setup.name}", kind),
                          (f"{key}_diff", f"{t[key]}: {t['diff']}", "num" if key == "mean_rounds" else "pp")]
        duel_cols.append(("note", t["note"], "text"))
        parts.append(f"<h4>{esc(t['duels_diff'].format(ended=ended))}</h4>" + html_table(c["duels"], duel_cols, lang))
        parts.append(f"<h4>{esc(t['worth_diff'])}</h4>"
                     + html_table(c["worth"], [("value", label(lang, "value", sid), "int"),
                                               ("book", baseline.name, "pts"), ("house", setup.name, "pts"),
                                               ("diff", t["diff"], "pp")], lang))
    return "\n".join(parts)

