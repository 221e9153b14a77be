"""What the library's own words say in Russian: the values a field takes, what a field allows, the labels of the
condition tracks, why a level is undefined, and a refusal of a bad value.

The library speaks English (its messages are the command line's); the app and the report speak the designer's
language, so these turn the library's structured values (a spec, a :class:`~analysis.base.params.ParamError`, a
track label) into Russian.  An identifier a designer types stays beside its Russian name, in parentheses.

>>> value_label("ru", "draw"), value_label("ru", "3d6"), value_label("en", "draw")
('ничья (draw)', '3к6', 'draw')
>>> track_label("ru", "fatigue 1, light 1"), track_label("ru", "out (trauma 13)")
('усталость 1, лёгкая 1', 'выбыл (травма 13)')
"""

from __future__ import annotations

import re
from typing import Any

from analysis.base.params import Bool, Choice, Faces, Float, Int, ParamError, Spec, shown, suggest
from analysis.present.i18n import dice, label

VALUES_RU = {
    "true": "да", "false": "нет", "none": "нет", "book": "как в книге",
    "draw": "ничья", "reroll": "переброс", "floor": "вниз", "nearest": "до ближайшего", "once": "один раз",
    "literal": "дословно", "absorb": "поглощает", "negate": "отменяет удар", "enforce": "отвергать",
    "warn": "предупреждать", "zero": "ноль", "count": "считается", "threshold": "над порогом",
    "defense": "над защитой", "total": "полная сила", "weapon": "сила оружия", "one_six": "правило 1 и 6",
    "d6": "обычный к6", "one_zero": "1 даёт 0", "immediate": "сразу", "roll": "при броске",
    "one_per_hit": "одна за удар", "stack": "каждая отдельно", "lt": "меньше Предела",
    "le": "не больше Предела", "body": "по Телу", "reaction": "по Реакции", "moving": "если цель движется",
    "defends": "если цель обороняется", "sum": "сумма", "worst": "худший", "local": "местные",
    "when_lower": "если снижает уровень", "when_lower_any": "если снижает уровень, и только усталость",
    "never": "никогда", "penetrating": "если пробил броню", "always": "всегда", "text": "по тексту",
    "capped": "не больше предела", "fixed": "всегда фиксированное", "complication": "осложнение",
    "fatigue": "усталость", "stop": "бой кончается", "finish": "добивание", "dying": "при смерти",
    "dead": "мёртв", "melee": "ближний бой", "ranged": "дальний бой", "normal": "обычная",
    "total_defence": "тотальная защита", "offensive": "атакующий", "defensive": "защитный",
    "no_defense": "без защиты", "arm": "рука", "leg": "нога", "head": "голова", "hand": "кисть",
    "foot": "стопа", "knee": "колено", "act": "действовать", "delay": "отложить",
    "initiative_skip": "инициативный пропуск", "wound": "раны", "shock": "шок", "ballistic": "баллистика",
    "out": "от вывода из строя", "a": "сторона A", "b": "сторона B", "full": "полная", "exact": "точная",
    "default": "по умолчанию", "fudge": "фадж", "d5": "к5", "while_up": "пока цель в строю",
    "weakest": "слабейшего", "random": "случайного", "strongest": "сильнейшего", "spread": "разных по очереди",
    "any": "при любом отставании", "economy": "экономия ИН", "order": "порядок по ИН каждый раунд",
    "average": "средняя ИН",
}
"""Russian names of the values a field takes (choices, presets, booleans); the identifier stays beside it."""

REASONS_RU = {
    "armor": "в источнике Броня снижает урон на свой уровень, не говоря насколько: лаборатория вычитает очки брони "
             "из каждого попадания, не ниже 0",
    "total_defence_rounds": "против тотальной защиты бой ничем не кончается: лаборатория останавливает его через "
                            "столько раундов (приходит помощь, атакующий сдаётся)",
    "shock_rule": "источник называет Шок без чисел: замена лаборатории — проверка Тела после попадания сильнее "
                  "порога шока",
    "finish_attacks": "ни один источник не говорит, сколько победитель бьёт беспомощного: лаборатория "
                      "останавливается после стольких ударов (after_out=finish)",
    "carry_floor": "источник переносит долг ИН целиком и не даёт нижней границы: лаборатория ограничивает его, чтобы "
                   "точная цепь оставалась конечной",
    "dk_faces": "фрагмент не определяет кость К; крайние значения его правила защиты −5 и −6 требуют трёх костей от "
                "−2 до +2: перемаркированная к6",
    "no_defense_bonus": "нет числа для отказа от защиты: вдвое больше +1 обмена в стойке",
    "melee_reach": "источник не даёт оружию ближнего боя досягаемости: 2 м — шаг и клинок",
    "stun_actions": "источник говорит, что выстрел в голову оглушает, но не на сколько: одно потерянное действие",
    "gear_rating": "источник не даёт оружию рейтинга надёжности: 8 — с ним средний бросок 2К доходит до 15, и "
                   "оружие ломается в 42,6% тестов",
}
"""Russian of why the lab chose each assumption's number (:mod:`analysis.engine.assumptions`), by its name."""

_TRACK_RU = (("damage taken", "получено урона"), ("incapacitated", "недееспособен"), ("unhurt", "невредим"),
             ("fatigue", "усталость"), ("light", "лёгкая"), ("medium", "средняя"), ("heavy", "тяжёлая"),
             ("wounds", "раны"), ("shock", "шок"), ("trauma", "травма"), ("dying", "при смерти"),
             ("dead", "мёртв"), ("out", "выбыл"))
LEVELS_RU = {"out": "выбыл", "dying": "при смерти", "dead": "мёртв", "killed": "погиб"}


def value_label(lang: str, value: Any) -> str:
    """A field's value as a dropdown shows it: dice as the language writes them, a word with its identifier."""
    text = str(value).lower() if isinstance(value, bool) else str(value)
    if lang != "ru":
        return text
    if re.fullmatch(r"\d*d\d+(x\d+)?", text):
        return dice(lang, text)
    word = VALUES_RU.get(text)
    return f"{word} ({text})" if word else text


def assumption_reason(lang: str, name: str, reason: str) -> str:
    """Why the lab chose assumption ``name``'s number (the library's ``reason``), in ``lang``, named by it.

    >>> assumption_reason("ru", "no_defense_bonus", "no number for not defending")
    '«no_defense_bonus»: нет числа для отказа от защиты: вдвое больше +1 обмена в стойке'
    """
    if lang != "ru":
        return f"{name}: {reason}"
    return f"«{name}»: {REASONS_RU.get(name, reason)}"


def track_label(lang: str, text: str) -> str:
    """A condition on a track (``damage taken 10``, ``wounds 1, shock 0``, ``out (trauma 13)``) in ``lang``."""
    if lang != "ru":
        return text
    for en, ru in _TRACK_RU:
        text = re.sub(rf"\b{en}\b", ru, text)
    return text


def allowed_text(lang: str, spec: Spec) -> str:
    """What a field allows, in ``lang`` (the spec's own words in English)."""
    if lang != "ru":
        return spec.allowed
    if isinstance(spec, Int):
        return f"целое от {spec.lo} до {spec.hi}" + (f" или {value_label(lang, 'none')}" if spec.optional else "")
    if isinstance(spec, Float):
        return "число" if spec.lo == float("-inf") and spec.hi == float("inf") else f"число от {spec.lo:g} до {spec.hi:g}"
    if isinstance(spec, Bool):
        return f"{value_label(lang, True)} или {value_label(lang, False)}"
    if isinstance(spec, Choice):
        return "одно из: " + ", ".join(value_label(lang, c) for c in spec.choices)
    if isinstance(spec, Faces):
        names = getattr(spec, "names", ())
        if names:
            bounds = getattr(spec, "bounds", ())
            slots = ", ".join(f"{track_label(lang, n)} {lo}..{hi}" for n, (lo, hi) in zip(names, bounds))
            return f"список из {len(names)} целых ({slots})" + (", по возрастанию" if getattr(spec, "increasing", False)
                                                                 else "")
        text = f"непустой список не больше чем из {spec.max_faces} целых от {spec.lo} до {spec.hi}"
        if spec.presets:
            text += " или одно из: " + ", ".join(value_label(lang, p) for p in spec.presets)
        if "book" in spec.allowed:
            text = f"{value_label(lang, 'book')}: столбец книги для кубика, или " + text
        return text
    return spec.allowed


def field_hint(lang: str, help_text: str, spec: Spec, default: str) -> str:
    """A field's tooltip: what it means, what it allows and its default.

    >>> field_hint("ru", "равенство в состязании", Choice(("draw", "reroll")), "draw")
    'равенство в состязании; одно из: ничья (draw), переброс (reroll); по умолчанию ничья (draw)'
    """
    if lang != "ru":
        return f"{help_text}; {spec.allowed}; default {default}"
    return f"{help_text}; {allowed_text(lang, spec)}; по умолчанию {value_label(lang, default)}"


def level_missing(lang: str, system: Any, level: str) -> str | None:
    """Why a duel has no figure for ``level`` (the library's reason in English), ``None`` when the system has it."""
    reason = system.level_missing(level)
    if reason is None or lang != "ru":
        return reason
    deepest = [name for name, text in system.levels.items() if text is not None][-1]
    return f"в {system.title_ru} нет уровня «{LEVELS_RU[level]}»: самый тяжёлый — «{LEVELS_RU[deepest]}»"


def refusal(lang: str, err: Exception) -> str:
    """A refusal in ``lang``: a :class:`~analysis.base.params.ParamError` rebuilt from its parts (the parameter, the
    value and what is allowed); any other message as the library wrote it, after a Russian lead."""
    if lang != "ru":
        return str(err)
    if isinstance(err, ParamError):
        head = str(err).split(f"{err.name} = ", 1)[0] + err.name
        for en, ru in _WHERE_RU:
            head = re.sub(rf"\b{en}\b", ru, head)
        head = re.sub(r"\b(tristat|onesix|tun|kurs)\b", lambda m: label(lang, "short", m.group(1)) + ",", head)
        near = suggest(err.value, err.options) if isinstance(err.value, str) and err.options else None
        tail = f"; может быть, «{near}»?" if near is not None and near != err.value else ""
        return f"{head}={shown(err.value)}: такое значение недопустимо; допустимо: {_allowed_ru(err.allowed)}{tail}"
    return f"библиотека отказала: {err}"


_WHERE_RU = (("ruleset", "правила"), ("fighter file", "файл бойца"), ("fighter", "боец"),
             ("archetype", "архетип"), ("check", "проверка"))
_ALLOWED_RU = ((r"an integer in (-?\d+)\.\.(-?\d+)", r"целое от \1 до \2"),
               (r"a non-empty list of at most (\d+) integers in (-?\d+)\.\.(-?\d+)",
                r"непустой список не больше чем из \1 целых от \2 до \3"),
               (r"(?:^| or )one of (.*)$", r" или одно из (\1)"), (r"true or false", "да (true) или нет (false)"),
               (r"a parameter among (.*?)(; did you mean|$)", r"одно из полей (\1)\2"),
               (r"; did you mean (.*)\?$", r"; может быть, «\1»?"), (r" or none", " или нет (none)"),
               (r"a number in ", "число в "), (r"a probability in ", "вероятность в "))


def _allowed_ru(text: str) -> str:
    for pattern, ru in _ALLOWED_RU:
        text = re.sub(pattern, ru, text)
    return text.removeprefix(" или ")

