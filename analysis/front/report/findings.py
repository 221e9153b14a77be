"""The report's findings: two to four sentences per section, generated from the same tables as its figures,
so they say what the numbers say whatever the rules or fighters; a section whose headline figure rests on the
lab's assumptions adds one sentence on how far it moves over each one's plausible values.

Each :class:`Finding` keeps the facts it states (system ids, probabilities) beside its text, so a test can
check the facts against the tables and the text against the facts.

>>> from analysis import compare
>>> f = checks({"curves": compare.success_curves(), "dice": compare.dice_families()}, "en")
>>> len(f) >= 2 and all(x.text.endswith(".") for x in f)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from analysis.present.i18n import dice, label, number, odds, percent, system_name
from analysis.systems import get_system

TOL = 1e-9
"""Changes smaller than this are no change at all."""


@dataclass(frozen=True)
class Finding:
    """One sentence and the facts it states."""

    key: str
    facts: Mapping[str, Any]
    text: str


def _say(lang: str, en: str, ru: str, **kw: Any) -> str:
    """The sentence in ``lang``; a name ending in a full stop (К.У.Р.С.) ends the sentence once."""
    return (en if lang == "en" else ru).format(**kw).replace("..", ".")


def _names(lang: str, ids: list[str]) -> str:
    names = [system_name(lang, s) for s in ids]
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + (" and " if lang == "en" else " и ") + names[-1]


def _pp(lang: str, x: float) -> str:
    """Percentage points, signed."""
    return ("+" if x > 0 else "") + number(lang, 100 * x, 1)


def _extremes(values: Mapping[str, float]) -> tuple[str, str]:
    """(id of the largest, id of the smallest)."""
    return max(values, key=values.get), min(values, key=values.get)


# ------------------------------------------------------------------ checks
def tail_at(curves: pd.DataFrame, below: float = 4.0) -> dict[str, float]:
    """P(success) at the largest value at least ``below`` points under each system's 50% point."""
    out = {}
    for sid, part in curves.groupby("system", sort=False):
        low = part[part["modifier"] <= -below]
        if len(low):
            out[sid] = float(low.sort_values("modifier")["p_success"].iloc[-1])
    return out


def checks(t: Mapping[str, pd.DataFrame], lang: str) -> list[Finding]:
    """Tails, the top of the range, and what Tri-Stat's die does to a point."""
    out = []
    tail = tail_at(t["curves"])
    if len(tail) >= 2:
        most, least = _extremes(tail)
        out.append(Finding("tail", {"most": most, "least": least, "p_most": tail[most], "p_least": tail[least]},
                           _say(lang, "Four points below its 50% point a check still succeeds {a} of the time in {m} "
                                      "and {b} in {l}.",
                                "На четыре очка ниже точки 50% проверка всё ещё удаётся в {a} случаев в {m} и в {b} "
                                "в {l}.", a=percent(lang, tail[most]), m=system_name(lang, most),
                                b=percent(lang, tail[least]), l=system_name(lang, least))))
    top = t["curves"].groupby("system", sort=False)["p_success"].max()
    capped = [s for s, p in top.items() if p < 1 - TOL]
    sure = [s for s in top.index if s not in capped]
    if capped:
        best = ", ".join(f"{system_name(lang, s)} {percent(lang, top[s])}" for s in capped)
        text = _say(lang, "At the top of its range {c} never reaches certainty (best: {b}); {s} do.",
                    "В верхней части диапазона {c} не даёт гарантии (лучшее: {b}); {s} — дают.",
                    c=_names(lang, capped), b=best, s=_names(lang, sure) or "—")
    else:
        text = _say(lang, "Every system reaches certainty at the top of its range.",
                    "Каждая система доходит до гарантированного успеха в верхней части диапазона.")
    out.append(Finding("top", {"capped": capped, "best": {s: float(top[s]) for s in capped}}, text))
    steps = point_at_middle(t["dice"], "tristat")
    if len(steps) >= 2:
        first, last = list(steps)[0], list(steps)[-1]
        out.append(Finding("die", {"first": first, "last": last, "pp_first": steps[first], "pp_last": steps[last]},
                           _say(lang, "On Tri-Stat's {f} one point of target moves a check by up to {a} percentage "
                                      "points, on {g} by {b}: the campaign's die sets what a point is worth.",
                                "В Tri-Stat на {f} одно очко Цели меняет проверку до {a} п.п., на {g} — до {b}: "
                                "кубик кампании задаёт цену очка.",
                                f=dice(lang, first), g=dice(lang, last), a=number(lang, 100 * steps[first], 1),
                                b=number(lang, 100 * steps[last], 1))))
    return out


def point_at_middle(families: pd.DataFrame, system: str) -> dict[str, float]:
    """The largest change of P(success) one point makes, per dice mode of ``system``."""
    part = families[families["system"] == system]
    return {mode: float(np.diff(c.sort_values("value")["p_success"].to_numpy()).max())
            for mode, c in part.groupby("dice", sort=False)}


# ------------------------------------------------------------------- worth
def worth(t: Mapping[str, pd.DataFrame], lang: str) -> list[Finding]:
    """What a point buys at the middle, and whether the outcome's spread is steady across the range."""
    wt = t["worth"]
    middle = wt[wt["modifier"].abs() < 1].groupby("system", sort=False)["delta_p"].max().dropna().to_dict()
    most, least = _extremes(middle)
    out = [Finding("point", {"most": most, "least": least, "dp_most": middle[most], "dp_least": middle[least]},
                   _say(lang, "At the middle of the range one more point buys {a} percentage points of P(success) in "
                              "{m} and {b} in {l}.",
                        "В середине диапазона ещё одно очко даёт {a} п.п. к P(успеха) в {m} и {b} — в {l}.",
                        a=number(lang, 100 * middle[most], 1), m=system_name(lang, most),
                        b=number(lang, 100 * middle[least], 1), l=system_name(lang, least)))]
    spans = spread_spans(wt)
    steady = [s for s, (lo, hi) in spans.items() if hi - lo <= 0.1 * hi]
    varying = {s: v for s, v in spans.items() if s not in steady}
    if varying:
        name = max(varying, key=lambda s: varying[s][1] - varying[s][0])
        lo, hi = varying[name]
        text = _say(lang, "The outcome's spread (std) is steady across the useful range in {st}; it changes most in "
                          "{n}: from {lo} to {hi} {u}.",
                    "Разброс результата (ст. откл.) почти постоянен в рабочем диапазоне у {st}; сильнее всего он "
                    "меняется у {n}: от {lo} до {hi} ({u}).",
                    st=_names(lang, steady) or "—", n=system_name(lang, name), lo=number(lang, lo, 2),
                    hi=number(lang, hi, 2), u=label(lang, "unit", name))
    else:
        name, text = "", _say(lang, "The outcome's spread (std) is steady across the useful range in every system.",
                              "Разброс результата (ст. откл.) почти постоянен в рабочем диапазоне у всех систем.")
    out.append(Finding("spread", {"steady": steady, "most_varying": name, "spans": spans}, text))
    return out


def spread_spans(wt: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """(min, max) of the outcome's std where 5% < P(success) < 95%, per system."""
    useful = wt[(wt["p_success"] > 0.05) & (wt["p_success"] < 0.95)]
    return {s: (float(p["std"].min()), float(p["std"].max())) for s, p in useful.groupby("system", sort=False)}


# ----------------------------------------------------------------- special
SPECIAL_WORDS = {
    "en": {"p_critical": "a critical", "p_fumble": "a fumble", "p_equipment_fault": "an equipment fault",
           "p_complication": "a success with a complication"},
    "ru": {"p_critical": "критический успех", "p_fumble": "провал", "p_equipment_fault": "отказ снаряжения",
           "p_complication": "успех с осложнением"},
}


def special(t: Mapping[str, pd.DataFrame], lang: str) -> list[Finding]:
    """The rarest and the most common special result, and which systems have none of a kind."""
    crits = t["crits"]
    cells = [(row["system"], row["dice"], kind, float(row[kind])) for _, row in crits.iterrows()
             for kind in SPECIAL_WORDS["en"] if kind in crits.columns and pd.notna(row[kind]) and row[kind] > 0]
    rare = min(cells, key=lambda c: c[3])
    common = max(cells, key=lambda c: c[3])
    words = SPECIAL_WORDS[lang]
    out = [Finding("rare", {"rarest": rare, "commonest": common},
                   _say(lang, "At the standard check the rarest special result is {k} on {s} {d} ({p}); the most "
                              "common is {k2} on {s2} {d2} ({p2}).",
                        "На стандартной проверке реже всего встречается {k} в {s} {d} ({p}); чаще всего — {k2} "
                        "в {s2} {d2} ({p2}).",
                        k=words[rare[2]], s=system_name(lang, rare[0]), d=dice(lang, rare[1]), p=odds(lang, rare[3]),
                        k2=words[common[2]], s2=system_name(lang, common[0]), d2=dice(lang, common[1]),
                        p2=odds(lang, common[3])))]
    none = [s for s, part in crits.groupby("system", sort=False) if part["p_critical"].isna().all()]
    if none:
        out.append(Finding("no_crits", {"systems": none},
                           _say(lang, "{n} have no critical result at all: the table shows a dash there, not 0.",
                                "У {n} критических результатов нет вовсе: в таблице там прочерк, а не 0.",
                                n=_names(lang, none))))
    return out


# ------------------------------------------------------------------ combat
def combat(t: Mapping[str, pd.DataFrame], lang: str) -> list[Finding]:
    """How decisive a point of combat skill is, how long fights last, and mutual knock-outs."""
    gap = t["skill_gap"]
    out = []
    zero = gap[gap["gap"] == 0].set_index("system")
    one = gap[gap["gap"] == 1].set_index("system")
    if len(one):
        moved = {s: float(one.loc[s, "p_a_wins"] - zero.loc[s, "p_a_wins"]) for s in one.index}
        most, least = _extremes(moved)
        out.append(Finding("decisive", {"most": most, "least": least, "moved": moved},
                           _say(lang, "One more point of combat skill for A moves P(A wins) the most in {m} (from {a0} "
                                      "to {a1}) and the least in {l} (from {b0} to {b1}).",
                                "Одно очко боевого навыка у A сильнее всего меняет P(победы A) в {m} (с {a0} до {a1}) "
                                "и слабее всего — в {l} (с {b0} до {b1}).",
                                m=system_name(lang, most), a0=percent(lang, zero.loc[most, "p_a_wins"]),
                                a1=percent(lang, one.loc[most, "p_a_wins"]), l=system_name(lang, least),
                                b0=percent(lang, zero.loc[least, "p_a_wins"]), b1=percent(lang, one.loc[least, "p_a_wins"]))))
    rounds = zero["mean_rounds"].dropna().astype(float).to_dict()
    longest, shortest = _extremes(rounds)
    seconds = {s: get_system(s).round_seconds for s in (shortest, longest)}
    out.append(Finding("length", {"shortest": shortest, "longest": longest, "rounds": rounds},
                       _say(lang, "Without a skill gap the first fighter drops after {a} rounds on average in {s}{sa} "
                                  "and after {b} in {l}{lb}.",
                            "Без разницы в навыках первый боец выбывает в среднем через {a} раунда в {s}{sa} и через "
                            "{b} — в {l}{lb}.",
                            a=number(lang, rounds[shortest], 1), s=system_name(lang, shortest),
                            b=number(lang, rounds[longest], 1), l=system_name(lang, longest),
                            sa=_secs(lang, rounds[shortest], seconds[shortest]),
                            lb=_secs(lang, rounds[longest], seconds[longest]))))
    both = zero["p_both_out"].astype(float).to_dict()
    top = max(both, key=both.get)
    out.append(Finding("both_out", {"system": top, "p": both[top]},
                       _say(lang, "Both fighters go down in the same round most often in {s}: {p} of fights without a "
                                  "skill gap.",
                            "Оба бойца выбывают в одном раунде чаще всего в {s}: {p} боёв без разницы в навыках.",
                            s=system_name(lang, top), p=odds(lang, both[top]))))
    return out + assumed(t, lang, "mean_rounds")


def _secs(lang: str, rounds: float, seconds: float | None) -> str:
    if not seconds:
        return ""
    return _say(lang, " (about {n} s)", " (около {n} с)", n=f"{rounds * seconds:.0f}")


# --------------------------------------------------------------- lethality
AFTER_OUT_WORDS = {
    "en": {"stop": "the duel stops at the first out, so only the deciding blow can kill (finishing the helpless one "
                   "is not modelled in every system yet)",
           "finish": "the winner keeps attacking the helpless loser until the killed level or {n} more attacks"},
    "ru": {"stop": "бой кончается на первом выводе из строя, так что убить может только решающий удар (добивание "
                   "пока смоделировано не во всех системах)",
           "finish": "победитель добивает беспомощного до уровня гибели или ещё {n} атак"},
}


def lethality(t: Mapping[str, pd.DataFrame], lang: str, finish_attacks: int = 10) -> list[Finding]:
    """How lethality is counted, the most and least lethal systems, undefined levels and hits to go down."""
    leth = t["lethality"]
    after, level = leth["after_out"].iloc[0], leth["lethal_at"].iloc[0]
    level_word = {"en": {"dying": "dying", "dead": "dead"}, "ru": {"dying": "«при смерти»", "dead": "«гибель»"}}
    out = [Finding("how", {"after_out": after, "lethal_at": level},
                   _say(lang, "Killed means {lv} (lethal_at={lvid}), and after_out={a}: {w}.",
                        "Гибель здесь — {lv} (lethal_at={lvid}), after_out={a}: {w}.",
                        lv=level_word[lang][level], lvid=level, a=after,
                        w=AFTER_OUT_WORDS[lang][after].format(n=finish_attacks)))]
    zero = leth[leth["gap"] == 0].set_index("system")["p_killed"]
    defined = {s: float(p) for s, p in zero.items() if pd.notna(p)}
    if len(defined) >= 2:
        most, least = _extremes(defined)
        out.append(Finding("lethal", {"most": most, "least": least, "p": defined},
                           _say(lang, "Without a skill gap the fight kills {a} of the time in {m} and {b} in {l}.",
                                "Без разницы в навыках бой убивает в {a} случаев в {m} и в {b} — в {l}.",
                                a=odds(lang, defined[most]), m=system_name(lang, most), b=odds(lang, defined[least]),
                                l=system_name(lang, least))))
    missing = [s for s, p in zero.items() if pd.isna(p)]
    if missing:
        out.append(Finding("undefined", {"systems": missing},
                           _say(lang, "{n}: not defined, the system has no {lv} level (shown as a gap, not 0).",
                                "{n}: не определено, у системы нет уровня {lv} (на рисунке пропуск, а не 0).",
                                n=_names(lang, missing), lv=level_word[lang][level])))
    medians = median_to_out(t["hits_to_out"], "hits")
    if len(medians) >= 2:
        many, few = _extremes(medians)
        out.append(Finding("hits", {"fewest": few, "most": many, "medians": medians},
                           _say(lang, "Half of the time a fresh defender is out after {a} damaging hits in {f}, and only "
                                      "after {b} in {m}.",
                                "В половине случаев свежего защитника выводят из строя {a} {wa} в {f}, а в {m} нужно "
                                "{b} {wb}.",
                                a=medians[few], f=system_name(lang, few), b=medians[many], m=system_name(lang, many),
                                wa=_hits_ru(medians[few]), wb=_hits_ru(medians[many]))))
    return out + assumed(t, lang, "p_killed")


def _hits_ru(n: int) -> str:
    """«ранящий удар» agreeing with ``n``.

    >>> _hits_ru(1), _hits_ru(3), _hits_ru(5), _hits_ru(12), _hits_ru(22)
    ('ранящий удар', 'ранящих удара', 'ранящих ударов', 'ранящих ударов', 'ранящих удара')
    """
    if n % 10 == 1 and n % 100 != 11:
        return "ранящий удар"
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return "ранящих удара"
    return "ранящих ударов"


def median_to_out(hits: pd.DataFrame, measure: str) -> dict[str, int]:
    """The smallest k with P(out after at most k) >= 1/2, per system."""
    part = hits[(hits["measure"] == measure) & (hits["p_out"] >= 0.5)]
    return {s: int(p["k"].min()) for s, p in part.groupby("system", sort=False)}


# ------------------------------------------------------------------- rules
def rules(t: Mapping[str, pd.DataFrame], lang: str) -> list[Finding]:
    """The readings that move checks and kills the most, and the ones that change nothing here."""
    v = t["variants"]
    out = []
    for column, en, ru in (("check_shift", "checks", "проверки"), ("d_p_killed", "how often the duel kills",
                                                                   "частоту гибели в бою")):
        values = v[column].astype(float).abs()
        if values.notna().any() and values.max() > TOL:
            row = v.loc[values.idxmax()]
            out.append(Finding(f"largest_{column}", {"system": row["system"], "variant": row["variant"],
                                                     "value": float(row[column])},
                               _say(lang, "The reading that moves {what} the most is {var} in {s}: {pp} percentage "
                                          "points.",
                                    "Сильнее всего {what} меняет прочтение {var} в {s}: {pp} п.п.",
                                    what=en if lang == "en" else ru, var=row["variant"],
                                    s=system_name(lang, row["system"]), pp=_pp(lang, float(row[column])))))
    measures = ["check_shift", "d_p_a_wins", "d_p_killed", "d_mean_rounds"]
    values = v[measures].astype(float)
    inert = v[(values.abs() < TOL).all(axis=1)]
    if len(inert):
        names = ", ".join(f"{r} ({system_name(lang, s)})" for s, r in zip(inert["system"], inert["variant"]))
        out.append(Finding("inert", {"variants": list(zip(inert["system"], inert["variant"]))},
                           _say(lang, "{n} of {N} readings change nothing in these checks and this duel: {names}.",
                                "{n} из {N} прочтений ничего не меняют в этих проверках и этом бою: {names}.",
                                n=len(inert), N=len(v), names=names)))
    refused = v[v["d_p_a_wins"].isna()]
    if len(refused):
        names = ", ".join(f"{r} ({system_name(lang, s)})" for s, r in zip(refused["system"], refused["variant"]))
        out.append(Finding("refused", {"variants": list(zip(refused["system"], refused["variant"]))},
                           _say(lang, "The duel is refused under {names}: these fighters break that ruleset's limits "
                                      "(see the table's note).",
                                "Бой не допускается при {names}: эти бойцы нарушают пределы такого набора правил "
                                "(см. примечание в таблице).", names=names)))
    return out[:4]


# ----------------------------------------------------------------- tactics
def tactics(t: Mapping[str, pd.DataFrame], lang: str) -> list[Finding]:
    """Which tactical options raise the chooser's P(win) in the setup's duel, and which cost it."""
    p = t["policies"]
    if p.empty:
        return [Finding("none", {}, _say(lang, "No system models a tactical option (policy) yet; this section fills "
                                               "in as soon as one does.",
                                         "Тактические приёмы (policy) пока не смоделированы ни в одной системе; "
                                         "раздел заполнится, как только они появятся."))]
    ok = p[p["d_p_a_wins"].notna()]
    good = ok[ok["d_p_a_wins"] > TOL].sort_values("d_p_a_wins", ascending=False)
    bad = ok[ok["d_p_a_wins"] < -TOL].sort_values("d_p_a_wins")

    def listed(rows: pd.DataFrame) -> str:
        return ", ".join(f"{r.option} ({system_name(lang, r.system)}, {_pp(lang, r.d_p_a_wins)} п.п.)"
                         if lang == "ru" else f"{r.option} ({system_name(lang, r.system)}, {_pp(lang, r.d_p_a_wins)} pp)"
                         for r in rows.itertuples()) or ("ни одного" if lang == "ru" else "none")
    out = [Finding("worth", {"good": list(good["option"]), "bad": list(bad["option"])},
                   _say(lang, "Worth taking in this duel (P(A wins) rises): {g}. Not worth it: {b}.",
                        "Выгодны в этом бою (P(победы A) растёт): {g}. Невыгодны: {b}.", g=listed(good), b=listed(bad)))]
    refused = p[p["d_p_a_wins"].isna()]
    if len(refused):
        names = ", ".join(dict.fromkeys(f"{r.policy} ({system_name(lang, r.system)})" for r in refused.itertuples()))
        out.append(Finding("refused", {"options": list(refused["option"])},
                           _say(lang, "Not open to these fighters (refused by the rules, see the table's note): {n}.",
                                "Этим бойцам недоступны (правила их не допускают, см. примечание в таблице): {n}.",
                                n=names)))
    risk = ok[ok["d_p_a_killed"].notna()]
    if len(risk) and risk["d_p_a_killed"].abs().max() > TOL:
        row = risk.loc[risk["d_p_a_killed"].idxmax()]
        out.append(Finding("risk", {"option": row["option"], "system": row["system"], "d": float(row["d_p_a_killed"])},
                           _say(lang, "The option that most raises the chooser's own risk of being killed is {o} in {s} "
                                      "({pp} percentage points).",
                                "Сильнее всего собственный риск погибнуть повышает {o} в {s} ({pp} п.п.).",
                                o=row["option"], s=system_name(lang, row["system"]),
                                pp=_pp(lang, float(row["d_p_a_killed"])))))
    return out + assumed(t, lang, "p_a_wins", options=True)


# ------------------------------------------------------------- assumptions
FIGURE_WORDS = {"en": {"mean_rounds": "mean rounds", "p_killed": "P(killed)", "p_a_wins": "P(A wins)"},
                "ru": {"mean_rounds": "среднее число раундов", "p_killed": "P(гибели)", "p_a_wins": "P(победы A)"}}


def _figure(lang: str, figure: str, x: Any) -> str:
    if x is None or x != x:
        return "—"
    return number(lang, float(x), 1) if figure == "mean_rounds" else percent(lang, float(x))


def assumed(t: Mapping[str, pd.DataFrame], lang: str, figure: str, options: bool = False) -> list[Finding]:
    """How far ``figure`` of the setup's duel (``options``: of each tactical option's duel) moves over the plausible
    values of each lab assumption it rests on (the ``assumption_ranges`` table), where the move shows at the
    precision the report prints; one sentence, or none when nothing moves."""
    ranges = t.get("assumption_ranges")
    if ranges is None or ranges.empty:
        return []
    part = ranges[(ranges["option"] != "") if options else (ranges["option"] == "")]
    clauses, facts = [], {}
    for (sid, option, name), g in part.groupby(["system", "option", "assumption"], sort=False):
        shown = [_figure(lang, figure, x) for x in g[figure]]
        if len(set(shown)) < 2:
            continue
        facts[(sid, option, name)] = dict(zip(g["value"], g[figure]))
        lab = g.loc[g["current"].astype(bool), "value"]
        where = (f"{option}, " if option else "") + system_name(lang, sid)
        clauses.append(_say(lang, "{f} ({w}) at {n} = {v} (the lab's: {c}): {x}",
                            "{f} ({w}) при {n} = {v} (выбор лаборатории: {c}): {x}", f=FIGURE_WORDS[lang][figure],
                            w=where, n=name, v=" / ".join(g["value"]), c=lab.iloc[0] if len(lab) else "—",
                            x=" / ".join(shown)))
    if not clauses:
        return []
    return [Finding("assumptions", {"figure": figure, "ranges": facts},
                    _say(lang, "These figures rest on numbers the lab chose where no seed gives one; over each one's "
                               "plausible values: {c}.",
                         "Эти числа опираются на значения, выбранные лабораторией там, где источник их не даёт; по "
                         "правдоподобным значениям: {c}.", c="; ".join(clauses)))]


# ------------------------------------------------------------------- house
def house(comparison: Mapping[str, Mapping[str, Any]], lang: str, names: tuple[str, str]) -> list[Finding]:
    """Per system whose rules differ: the largest change of the check table and of the archetypes' P(killed)."""
    out = []
    for sid, c in comparison.items():
        if not c["changes"]:
            continue
        checks_diff = c["checks"]["diff"].dropna()
        duels = c["duels"]["p_killed_diff"].dropna().astype(float)
        dp = float(checks_diff.loc[checks_diff.abs().idxmax()]) if len(checks_diff) else 0.0
        dk = float(duels.loc[duels.abs().idxmax()]) if len(duels) else 0.0
        changed = ", ".join(f"{x['field']} {x['book']} → {x['house']}" for x in c["changes"])
        out.append(Finding(f"house_{sid}", {"system": sid, "check": dp, "killed": dk},
                           _say(lang, "{s}: {ch} ({a} against {b}) moves P(success) by up to {p} percentage points and "
                                      "an archetype's P(killed) by up to {k}.",
                                "{s}: {ch} ({a} против {b}) меняет P(успеха) до {p} п.п., а P(гибели) архетипа — до "
                                "{k} п.п.",
                                s=system_name(lang, sid), ch=changed, a=names[0], b=names[1], p=_pp(lang, dp),
                                k=_pp(lang, dk))))
    if not out:
        out.append(Finding("house_none", {}, _say(lang, "The two setups play by the same rules.",
                                                  "Обе настройки играют по одним и тем же правилам.")))
    return out


SECTION_FINDINGS: dict[str, Callable[..., list[Finding]]] = {
    "checks": checks, "worth": worth, "tables": special, "combat": combat, "lethality": lethality, "rules": rules,
    "tactics": tactics,
}
