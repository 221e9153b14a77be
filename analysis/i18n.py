"""Labels of the report and figures in English and Russian, with the systems' own terms.

>>> label("ru", "value", "tun")
'Предел'
>>> label("en", "p_success")
'P(success)'
"""

from __future__ import annotations

LANGS = ("en", "ru")

_COMMON = {
    "en": {
        "p_success": "P(success)",
        "modifier": "modifier relative to the 50% point",
        "value": "value",
        "outcome": "outcome",
        "probability": "probability",
        "delta_p": "P(success) bought by +1",
        "spread": "spread of the outcome (std)",
        "system": "system",
        "rounds": "rounds to finish",
        "p_win": "P(A wins)",
        "skill_gap": "skill gap (points of A's combat skills over B's)",
        "p_death": "P(death)",
        "p_incap": "P(incapacitated, not dead)",
        "damage": "damage per exchange",
        "effect": "effect size",
        "die": "die",
        "dice": "dice",
    },
    "ru": {
        "p_success": "P(успеха)",
        "modifier": "модификатор относительно точки 50%",
        "value": "значение",
        "outcome": "результат",
        "probability": "вероятность",
        "delta_p": "прирост P(успеха) от +1",
        "spread": "разброс результата (ст. откл.)",
        "system": "система",
        "rounds": "раунды до конца боя",
        "p_win": "P(победы A)",
        "skill_gap": "разница в боевых навыках (очки A сверх B)",
        "p_death": "P(смерти)",
        "p_incap": "P(вывода из строя без смерти)",
        "damage": "урон за обмен ударами",
        "effect": "величина эффекта",
        "die": "кубик",
        "dice": "кубики",
    },
}

_SYSTEM_TERMS = {
    "en": {
        "tristat": {"name": "Tri-Stat dX", "value": "target (stat + skill)", "outcome": "margin"},
        "onesix": {"name": "2K, rule of 1 and 6", "value": "action rating", "outcome": "success level"},
        "tun": {"name": "TUN", "value": "limit", "outcome": "effectiveness"},
        "kurs": {"name": "K.U.R.S.", "value": "skill", "outcome": "margin"},
    },
    "ru": {
        "tristat": {"name": "Tri-Stat dX", "value": "Цель (стат + навык)", "outcome": "Степень успеха"},
        "onesix": {"name": "2К, правило 1 и 6", "value": "Рейтинг действия", "outcome": "Успешность (У)"},
        "tun": {"name": "ТУН", "value": "Предел", "outcome": "Эффективность"},
        "kurs": {"name": "К.У.Р.С.", "value": "Навык", "outcome": "Величина успеха"},
    },
}


def label(lang: str, key: str, system: str | None = None) -> str:
    """A label in ``lang``; with ``system``, the system's own term for ``name``, ``value`` or ``outcome``."""
    if system is not None and key in _SYSTEM_TERMS[lang].get(system, {}):
        return _SYSTEM_TERMS[lang][system][key]
    return _COMMON[lang][key]
