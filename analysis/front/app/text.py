"""The app's words in English and Russian, with the systems' own terms, and numbers as each language writes them.

Field names come from the library (``Rules.describe()``, ``Fighter.describe()``...):
a field without a Russian name here shows its identifier, so a field added to
a system appears at once, named as on the command line.

>>> t("ru", "p_success"), field_label("ru", "limit", "tun"), dice("ru", "3d6")
('P(успеха)', 'Предел', '3к6')
>>> number("ru", 0.5833333), percent("en", 0.5833333)
('0,583333', '58.33%')
"""

from __future__ import annotations

import re
from typing import Any

from analysis.present.i18n import field_name, label

UI: dict[str, dict[str, str]] = {
    "en": {
        "title": "dicelab", "subtitle": "the designer's workbench",
        "checks": "Checks", "tune": "Tune", "duel": "Duel", "compare": "Compare", "design": "Design",
        "encounter": "Encounter", "encounter_of": "{a} against k × ({b})", "side_a": "Side A (3*trained_armed,veteran)",
        "unit_b": "Side B's unit, repeated k times", "fair_p": "fair below P(A wins) =", "max_count": "largest k",
        "fair_count": "fair count: the first k with P(A wins) < {p}", "count": "k (copies of B)",
        "no_fair": "P(A wins) stays at or above {p} up to k = {max}.", "monte_carlo": "Monte Carlo",
        "tactics": "Tactics", "play": "play", "play_book": "by the book", "play_best": "A's best response",
        "play_equilibrium": "equilibrium (both play well)", "game_value": "value at the equilibrium (P(A wins) − "
        "P(B wins))", "gain": "equilibrium − book", "best_gain": "A's best response − book",
        "rule_share": "share of the gain the simple rule keeps", "simple_rule": "simple rule",
        "dominated": "dominated fixed policies", "none_dominated": "none", "plays": "The three plays",
        "decisions": "Decisions at the equilibrium", "decision": "decision", "side": "side",
        "share_taken": "share taken", "worth": "worth (value lost if forbidden)",
        "tactics_model": "Solved to tolerance {tol:g}; the model of decisions: ",
        "system": "System", "language": "Language", "variants": "Rule readings (variants)",
        "constants": "House rules (the book's numbers)", "options": "Duel options", "check": "Check",
        "rules_file": "Load a rules file (.toml)", "fighter_a": "Fighter A", "fighter_b": "Fighter B",
        "archetype": "archetype", "policies": "tactics (policies)",
        "p_success": "P(success)", "p_critical": "P(critical)", "p_fumble": "P(fumble)", "residual": "residual",
        "exactly": "exactly", "at_least": "at least", "at_most": "at most", "show": "Show",
        "distribution": "Outcome distribution", "curve": "Success curve", "value": "value",
        "probability": "probability", "download": "Download CSV",
        "made_by": "Made by", "house_rules": "house rules", "none": "none (the book)",
        "assumptions": "lab assumptions (no seed gives these numbers)",
        "wish_p": "Wished P(success)", "tune_result": "Modifier needed", "tune_table": "The modifier for every P",
        "equiv": "Translate a difficulty", "to_system": "To system",
        "modifier": "modifier", "p_at": "P at it", "p_below": "P one below", "p_from": "P(success) here",
        "p_to": "P(success) there", "equiv_table": "The whole range",
        "method": "Method", "exact": "exact (Markov chain)", "mc": "Monte Carlo", "n": "trials (n)",
        "seed": "seed", "model": "model", "mc_options": "Simulation options",
        "p_a_wins": "P(A wins)", "p_b_wins": "P(B wins)", "p_both_out": "P(both out)",
        "p_stalemate": "P(never ends)", "p_unfinished": "P(unfinished)", "outcomes": "Outcomes per fighter",
        "p_capped": "P(ends at the {cap}-round cap)",
        "out": "out", "dying": "dying", "dead": "dead", "killed": "killed",
        "rounds": "Rounds to the first out", "round": "round", "mean_rounds": "mean rounds",
        "median_rounds": "median rounds", "exchange": "One exchange", "attacks": "attacks",
        "damage": "damage", "condition_after": "Defender's condition after it", "defender_track": "defender's track",
        "p_miss": "P(miss)", "p_defended": "P(defended)", "p_graze": "P(graze)", "p_hit": "P(hit)",
        "ci": "95% interval", "se": "SE", "not_defined": "not defined", "computing": "Computing…",
        "elapsed": "elapsed", "cancel": "Cancel", "cancelled": "Cancelled.", "estimate": "estimate",
        "mode": "Compare", "mode_variants": "two rule sets", "mode_fighters": "two pairings",
        "mode_systems": "two systems (matched as in the report)", "setup1": "Setup 1", "setup2": "Setup 2",
        "difference": "difference (2 − 1)", "check_table": "P(success) over the range",
        "matched_duel": "Duel", "skill_gap": "Skill gap: A's combat skills raised by k",
        "hit_edge": "hit edge", "p_killed": "P(at least one killed)", "gap": "gap",
        "finishing_curve": "How lethal: deaths against the finishing attacks allowed",
        "finish_attacks": "finishing attacks allowed (0: stop at the first out)", "these_rules": "these rules",
        "deciding_blow": "the deciding blow alone", "finishing_attacks": "finishing attacks",
        "vary": "Search (a.NAME=LO..HI, b.NAME=…, NAME=… for both)", "wish_rounds": "wished mean rounds",
        "wish_lethality": "wished P(at least one killed)", "wish_pwin": "wished P(A wins) (optional)", "top": "settings shown", "settings": "settings", "distance": "distance", "setting": "setting",
        "nothing_close": "No setting comes close: the nearest is {d:.2f} units away (one unit: 10 percentage "
                         "points of a probability, or a factor 1.5 in mean rounds). Widen the ranges or vary "
                         "other parameters.",
        "skipped": "skipped", "ignored": "Unknown link parameters ignored: {keys}",
        "error": "Error", "fifty": "modifier from the 50% point", "duel_of": "{a} (A) vs {b} (B)",
        "col_quantity": "quantity", "col_value": "value", "col_se": "se", "col_ci_low": "ci_low",
        "col_ci_high": "ci_high", "col_note": "note", "more_rows": "… {n} more rows in the CSV",
        "col_system": "system", "col_gap": "gap", "col_hit_edge": "hit_edge", "col_p_a_wins": "p_a_wins",
        "col_p_b_wins": "p_b_wins", "col_p_killed": "p_killed", "col_mean_rounds": "mean_rounds",
        "col_p_success": "p_success", "col_modifier": "modifier",
        "design_of": "{a} (A) vs {b} (B), {n} settings ({vary})",
        "distance_is": "distance = sqrt((ln(mean rounds / wished rounds) / ln 1.5)^2 + ((P(at least one killed) − "
                       "wished) / 0.10)^2 [+ ((P(A wins) − wished) / 0.10)^2])",
        "skipped_n": "skipped {n}: {first}", "ceiling": "No modifier brings this check to P(success) ≥ {p}: the "
        "ceiling is {ceiling}, first reached at {name} {at} (the most allowed is {hi}).",
        "floor": "Every allowed modifier reaches it: P(success) is {p} even at the lowest {name} ({value}).",
        "delta_p1": "ΔP(+1)", "no_gap": "gap 0", "states": "states",
    },
    "ru": {
        "title": "dicelab", "subtitle": "верстак разработчика правил",
        "checks": "Проверки", "tune": "Подбор", "duel": "Поединок", "compare": "Сравнение", "design": "Дизайн",
        "encounter": "Стычка", "encounter_of": "{a} против k × ({b})", "side_a": "Сторона A (3*trained_armed,veteran)",
        "unit_b": "Отряд стороны B, повторённый k раз", "fair_p": "равный бой, когда P(победы A) ниже",
        "max_count": "наибольшее k", "fair_count": "равное число: первое k, где P(победы A) < {p}",
        "count": "k (копий B)", "no_fair": "P(победы A) не опускается ниже {p} вплоть до k = {max}.",
        "monte_carlo": "Монте-Карло",
        "tactics": "Тактика", "play": "игра", "play_book": "по книге", "play_best": "лучший ответ A",
        "play_equilibrium": "равновесие (обе стороны играют лучшим образом)",
        "game_value": "цена игры в равновесии (P(победы A) − P(победы B))", "gain": "равновесие − книга",
        "best_gain": "лучший ответ A − книга", "rule_share": "доля выигрыша, которую сохраняет простое правило",
        "simple_rule": "простое правило", "dominated": "доминируемые политики", "none_dominated": "нет",
        "plays": "Три способа игры", "decisions": "Решения в равновесии", "decision": "решение",
        "side": "сторона", "share_taken": "доля выбора", "worth": "цена (потеря при запрете)",
        "tactics_model": "Решено с точностью {tol:g}; модель решений: ",
        "system": "Система", "language": "Язык", "variants": "Прочтения правил (варианты)",
        "constants": "Домашние правила (числа книги)", "options": "Параметры поединка", "check": "Проверка",
        "rules_file": "Загрузить файл правил (.toml)", "fighter_a": "Боец A", "fighter_b": "Боец B",
        "archetype": "архетип", "policies": "тактика",
        "p_success": "P(успеха)", "p_critical": "P(крит. успеха)", "p_fumble": "P(крит. провала)",
        "residual": "остаток",
        "exactly": "ровно", "at_least": "не меньше", "at_most": "не больше", "show": "Показать",
        "distribution": "Распределение результата", "curve": "Кривая успеха", "value": "значение",
        "probability": "вероятность", "download": "Скачать CSV",
        "made_by": "Получено при", "house_rules": "домашние правила", "none": "нет (как в книге)",
        "assumptions": "допущения лаборатории (этих чисел нет в источниках)",
        "wish_p": "Желаемая P(успеха)", "tune_result": "Нужный модификатор", "tune_table": "Модификатор для каждой P",
        "equiv": "Перевод сложности", "to_system": "В систему",
        "modifier": "модификатор", "p_at": "P при нём", "p_below": "P на единицу ниже", "p_from": "P(успеха) здесь",
        "p_to": "P(успеха) там", "equiv_table": "Весь диапазон",
        "method": "Метод", "exact": "точно (цепь Маркова)", "mc": "Монте-Карло", "n": "испытаний (n)",
        "seed": "зерно", "model": "модель", "mc_options": "Параметры симуляции",
        "p_a_wins": "P(победы A)", "p_b_wins": "P(победы B)", "p_both_out": "P(выбыли оба)",
        "p_stalemate": "P(бой не кончается)", "p_unfinished": "P(не закончен)", "outcomes": "Исходы для каждого бойца",
        "p_capped": "P(бой остановлен на {cap}-м раунде)",
        "out": "выбыл", "dying": "при смерти", "dead": "мёртв", "killed": "убит",
        "rounds": "Раунды до первого выбывания", "round": "раунд", "mean_rounds": "раундов в среднем",
        "median_rounds": "медиана раундов", "exchange": "Один обмен ударами", "attacks": "атакует",
        "damage": "урон", "condition_after": "Состояние защитника после него", "defender_track": "трек защитника",
        "p_miss": "P(промах)", "p_defended": "P(защитился)", "p_graze": "P(касание)", "p_hit": "P(попадание)",
        "ci": "95% интервал", "se": "ст. ошибка", "not_defined": "не определено", "computing": "Считаю…",
        "elapsed": "прошло", "cancel": "Отменить", "cancelled": "Отменено.", "estimate": "оценка",
        "mode": "Сравнить", "mode_variants": "два набора правил", "mode_fighters": "две пары бойцов",
        "mode_systems": "две системы (подобраны как в отчёте)", "setup1": "Вариант 1", "setup2": "Вариант 2",
        "difference": "разница (2 − 1)", "check_table": "P(успеха) по диапазону",
        "matched_duel": "Поединок", "skill_gap": "Разница в навыках: боевые навыки A выше на k",
        "hit_edge": "перевес в попаданиях", "p_killed": "P(хотя бы один погиб)", "gap": "разница",
        "finishing_curve": "Смертельность: гибель в зависимости от числа добивающих ударов",
        "finish_attacks": "разрешено добивающих ударов (0: бой кончается на первом выбывшем)",
        "these_rules": "эти правила", "deciding_blow": "только решающий удар", "finishing_attacks": "добивающих ударов",
        "vary": "Перебор (a.ИМЯ=ОТ..ДО, b.ИМЯ=…, ИМЯ=… для обоих)", "wish_rounds": "желаемое среднее число раундов",
        "wish_lethality": "желаемая P(хотя бы один погиб)", "wish_pwin": "желаемая P(победы A) (необязательно)",
        "top": "показать вариантов", "settings": "вариантов", "distance": "расстояние",
        "setting": "вариант",
        "nothing_close": "Ни один вариант не подходит: ближайший в {d:.2f} единицах (единица: 10 процентных "
                         "пунктов вероятности или множитель 1,5 в среднем числе раундов). Расширьте диапазоны "
                         "или меняйте другие параметры.",
        "skipped": "пропущено", "ignored": "Неизвестные параметры ссылки пропущены: {keys}",
        "error": "Ошибка", "fifty": "модификатор от точки 50%", "duel_of": "{a} (A) против {b} (B)",
        "col_quantity": "величина", "col_value": "значение", "col_se": "ст. ошибка", "col_ci_low": "95% ДИ, от",
        "col_ci_high": "95% ДИ, до", "col_note": "примечание", "more_rows": "… ещё строк в CSV: {n}",
        "col_system": "система", "col_gap": "разница в навыках", "col_hit_edge": "перевес в попаданиях",
        "col_p_a_wins": "P(победы A)", "col_p_b_wins": "P(победы B)", "col_p_killed": "P(хотя бы один погиб)",
        "col_mean_rounds": "раундов в среднем", "col_p_success": "P(успеха)", "col_modifier": "модификатор от 50%",
        "design_of": "{a} (A) против {b} (B), перебрано вариантов: {n} ({vary})",
        "distance_is": "расстояние = √((ln(среднее число раундов / желаемое) / ln 1,5)² + ((P(хотя бы один погиб) − "
                       "желаемая) / 0,10)² [+ ((P(победы A) − желаемая) / 0,10)²])",
        "skipped_n": "пропущено {n}, например: {first}", "ceiling": "Ни один модификатор не доводит эту проверку до "
        "P(успеха) ≥ {p}: потолок — {ceiling}, впервые при {name} {at} (больше {hi} нельзя).",
        "floor": "Любой допустимый модификатор даёт это: P(успеха) равна {p} даже при наименьшем значении «{name}» "
                 "({value}).",
        "delta_p1": "ΔP(+1)", "no_gap": "без разницы в навыках", "states": "состояний цепи",
    },
}

FIELDS_RU: dict[str, str] = {
    # checks
    "target": "Цель (стат + навык)", "rating": "Рейтинг действия (РД)", "mod": "модификаторы",
    "skilled": "есть навык", "gear_rating": "рейтинг снаряжения", "limit": "Предел", "dice": "кубики",
    "skill": "Навык", "difficulty": "Сложность",
    # rules
    "die": "кубик X в 2кX", "dk_faces": "грани кД", "finish_attacks": "атак по беспомощному",
    "after_out": "после выбывания", "lethal_at": "что считать смертью",
    # fighters
    "body": "Тело", "mind": "Разум", "soul": "Дух", "acv": "Боевое значение атаки",
    "dcv": "Боевое значение защиты", "shock": "Шок", "dying_at": "«при смерти» с Здоровья",
    "body_volume": "объём Тела", "body_defense": "Защита Тела", "offense": "нападение", "defense": "защита",
    "health": "Здоровье", "attack_bonus": "бонус атаки", "defense_bonus": "бонус защиты",
    "weapon_damage": "урон оружия", "armor": "броня", "block": "блок",
    "attack_rating": "РД атаки", "defense_rating": "РД защиты", "reaction": "Реакция", "intellect": "Интеллект",
    "reflexes": "Рефлексы", "training": "Тренированность [Т]", "personality": "Личность",
    "protection": "защита брони", "weapon_ps": "сила поражения (СП)", "weapon_class": "вид поражения",
    "unusual": "НХ (необычная)", "attack_feature": "особенность атаки", "extra_volume": "ДОТР (доп. объём)",
    "extra_defense": "ДТЗ (доп. защита)", "defends": "защищается", "weapon_n": "множитель оружия n",
    "weapon_b": "бонус оружия b", "attack_skill": "навык атаки", "defense_skill": "навык защиты",
    "strength": "Сила", "scale": "Масштаб", "weapon": "оружие", "weapon_type_bonus": "бонус типа оружия",
    "muscle_powered": "мускульное оружие", "shield": "щит", "agility": "Ловкость",
    # check results beyond success
    "p_equipment_fault": "P(отказа снаряжения)", "p_complication": "P(осложнения)", "mean_rt": "средний РТ",
}
"""Russian names of fields; a system whose term differs from this table has it in :data:`SYSTEM_FIELDS_RU`."""
SYSTEM_FIELDS_RU: dict[str, dict[str, str]] = {
    "tun": {"body": "ТХ (телесная)", "mind": "УХ (умственная)", "dice": "кубики"},
    "kurs": {"health": "Здоровье (фактор)"},
}


def t(lang: str, key: str, **fmt: Any) -> str:
    """A UI string in ``lang`` (English when the Russian one is missing), formatted with ``fmt``."""
    text = UI.get(lang, UI["en"]).get(key) or UI["en"][key]
    return text.format(**fmt) if fmt else text


def field_label(lang: str, name: str, system: str | None = None) -> str:
    """A field's name: the system's own Russian term where there is one, else the first clause of the field's
    Russian explanation (:func:`analysis.present.i18n.field_text`), else the identifier.

    >>> field_label("en", "limit", "tun"), field_label("ru", "body", "tun"), field_label("ru", "new_field")
    ('limit', 'ТХ (телесная)', 'new_field')
    >>> field_label("ru", "contest_tie", "tristat")
    'равенство в состязании'
    """
    if lang != "ru":
        return name
    if system and name == _value_of(system):
        return label("ru", "value", system)
    known = SYSTEM_FIELDS_RU.get(system or "", {}).get(name) or FIELDS_RU.get(name)
    return known or (field_name("ru", system, name) if system else "") or name


def _value_of(system: str) -> str:
    from analysis.systems import get_system

    return get_system(system).value


def count(lang: str, n: int) -> str:
    """A whole number with the language's thousands separator (a narrow space in Russian).

    >>> count("en", 20000), count("ru", 20000)
    ('20,000', '20\u202f000')
    """
    text = f"{n:,}"
    return text.replace(",", "\u202f") if lang == "ru" else text


def system_name(lang: str, system: str) -> str:
    """The system's name in ``lang`` (ТУН, К.У.Р.С., 2К...)."""
    return label(lang, "name", system)


def outcome_name(lang: str, system: str) -> str:
    """The system's outcome measure (margin, Успешность (У), Эффективность...)."""
    return label(lang, "outcome", system)


DICE = re.compile(r"\b(\d*)d(\d+)")


def dice(lang: str, text: str) -> str:
    """Dice notation as the language writes it: ``3d6`` is ``3к6`` in Russian.

    >>> dice("ru", "1d6x3"), dice("en", "3d6")
    ('1к6x3', '3d6')
    """
    return DICE.sub(r"\1к\2", text) if lang == "ru" else text


def number(lang: str, x: float | None, digits: int = 6) -> str:
    """A probability or mean with ``digits`` decimals (a decimal comma in Russian); ``—`` for none."""
    if x is None:
        return "—"
    out = f"{x:.{digits}f}"
    return out.replace(".", ",") if lang == "ru" else out


def percent(lang: str, x: float | None, digits: int = 2) -> str:
    """A probability as a percentage (a decimal comma and a spaced sign in Russian)."""
    if x is None:
        return "—"
    out = f"{100 * x:.{digits}f}%"
    return out.replace(".", ",").replace("%", " %") if lang == "ru" else out
