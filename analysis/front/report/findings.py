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

from analysis.present.i18n import dice, field_name, label, number, odds, percent
from analysis.present.phrases import value_label
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


def _sys(lang: str, system: str) -> str:
    """A system's name inside a sentence: the short one (2K, ТУН, К.У.Р.С.), which reads in any case ending."""
    return label(lang, "short", system)


def _names(lang: str, ids: list[str]) -> str:
    names = [_sys(lang, s) for s in ids]
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
                                "в {l}.", a=percent(lang, tail[most]), m=_sys(lang, most),
                                b=percent(lang, tail[least]), l=_sys(lang, least))))
    top = t["curves"].groupby("system", sort=False)["p_success"].max()
    capped = [s for s, p in top.items() if p < 1 - TOL]
    sure = [s for s in top.index if s not in capped]
    if capped:
        best = ", ".join(f"{_sys(lang, s)} {percent(lang, top[s])}" for s in capped)
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
    """What a point buys at the middle, and how many points a check's swing from 10% to 90% takes."""
    wt = t["worth"]
    middle = wt[wt["modifier"].abs() < 1].groupby("system", sort=False)["delta_p"].max().dropna().to_dict()
    most, least = _extremes(middle)
    out = [Finding("point", {"most": most, "least": least, "dp_most": middle[most], "dp_least": middle[least]},
                   _say(lang, "At the middle of the range one more point buys {a} percentage points of P(success) in "
                              "{m} and {b} in {l}.",
                        "В середине диапазона ещё одно очко даёт {a} п.п. к P(успеха) в {m} и {b} — в {l}.",
                        a=number(lang, 100 * middle[most], 1), m=_sys(lang, most),
                        b=number(lang, 100 * middle[least], 1), l=_sys(lang, least)))]
    sw = t["swing"].set_index("system")["points"].astype(float).to_dict()
    wide, narrow = _extremes(sw)
    out.append(Finding("swing", {"widest": wide, "narrowest": narrow, "points": sw},
                       _say(lang, "From a long shot (10%) to a near-certainty (90%) takes {a} points in {w} and {b} in "
                                  "{n}: in {w} the dice decide more, in {n} every point counts.",
                            "От почти безнадёжной проверки (10%) до почти верной (90%) — {a} очка в {w} и {b} — в {n}: "
                            "в {w} больше решают кубики, в {n} важно каждое очко.",
                            a=number(lang, sw[wide], 1), w=_sys(lang, wide), b=number(lang, sw[narrow], 1),
                            n=_sys(lang, narrow))))
    return out


# ----------------------------------------------------------------- special
SPECIAL_WORDS = {
    "en": {"p_critical": "a critical", "p_fumble": "a fumble", "p_equipment_fault": "an equipment fault",
           "p_complication": "a success with a complication"},
    "ru": {"p_critical": "критический успех", "p_fumble": "критический провал", "p_equipment_fault": "отказ снаряжения",
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
                        k=words[rare[2]], s=_sys(lang, rare[0]), d=dice(lang, rare[1]), p=odds(lang, rare[3]),
                        k2=words[common[2]], s2=_sys(lang, common[0]), d2=dice(lang, common[1]),
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
                                m=_sys(lang, most), a0=percent(lang, zero.loc[most, "p_a_wins"]),
                                a1=percent(lang, one.loc[most, "p_a_wins"]), l=_sys(lang, least),
                                b0=percent(lang, zero.loc[least, "p_a_wins"]), b1=percent(lang, one.loc[least, "p_a_wins"]))))
    rounds = zero["mean_rounds"].dropna().astype(float).to_dict()
    longest, shortest = _extremes(rounds)
    seconds = {s: get_system(s).round_seconds for s in (shortest, longest)}
    out.append(Finding("length", {"shortest": shortest, "longest": longest, "rounds": rounds},
                       _say(lang, "Without a skill gap the first fighter drops after {a} rounds on average in {s}{sa} "
                                  "and after {b} in {l}{lb}.",
                            "Без разницы в навыках первый боец выбывает в среднем через {a} раунда в {s}{sa} и через "
                            "{b} — в {l}{lb}.",
                            a=number(lang, rounds[shortest], 1), s=_sys(lang, shortest),
                            b=number(lang, rounds[longest], 1), l=_sys(lang, longest),
                            sa=_secs(lang, rounds[shortest], seconds[shortest]),
                            lb=_secs(lang, rounds[longest], seconds[longest]))))
    both = zero["p_both_out"].astype(float).to_dict()
    top = max(both, key=both.get)
    out.append(Finding("both_out", {"system": top, "p": both[top]},
                       _say(lang, "Both fighters go down in the same round most often in {s}: {p} of fights without a "
                                  "skill gap.",
                            "Оба бойца выбывают в одном раунде чаще всего в {s}: {p} боёв без разницы в навыках.",
                            s=_sys(lang, top), p=odds(lang, both[top]))))
    return out + assumed(t, lang, "mean_rounds")


def _secs(lang: str, rounds: float, seconds: float | None) -> str:
    if not seconds:
        return ""
    return _say(lang, " (about {n} s)", " (около {n} с)", n=f"{rounds * seconds:.0f}")


# --------------------------------------------------------------- lethality
LEVEL_WORDS = {"en": {"dying": "dying", "dead": "dead"}, "ru": {"dying": "«при смерти»", "dead": "«мёртв»"}}


def ranking(values: Mapping[str, float]) -> list[str]:
    """System ids, the largest value first (ties in the systems' order).

    >>> ranking({"tun": 0.2, "kurs": 0.5, "tristat": 0.2})
    ['kurs', 'tun', 'tristat']
    """
    return sorted(values, key=lambda s: -values[s])


def overtakes(curves: Mapping[str, Mapping[int, float]]) -> list[tuple[int, str, str]]:
    """``(k, x, y)`` each time system ``x`` passes ``y`` (more deaths) as the finishing attacks allowed grow to k.

    >>> overtakes({"tun": {0: 0.0, 1: 0.6}, "kurs": {0: 0.2, 1: 0.5}})
    [(1, 'tun', 'kurs')]
    """
    steps = sorted(next(iter(curves.values()))) if curves else []
    out = []
    for before, k in zip(steps, steps[1:]):
        for x in curves:
            for y in curves:
                if curves[x][before] <= curves[y][before] + TOL and curves[x][k] > curves[y][k] + TOL:
                    out.append((k, x, y))
    return out


def lethality(t: Mapping[str, pd.DataFrame], lang: str) -> list[Finding]:
    """What "killed" counts (and how far it moves over the lab's assumptions), the systems' order from the deciding
    blow alone to every finishing attack allowed, what the order rests on, and hits to go down (or which systems
    have no killed level)."""
    leth = t["lethality"]
    level = leth["lethal_at"].iloc[0]
    most = int(leth["finish_attacks"].max())
    out = [Finding("how", {"lethal_at": level, "finish_attacks": most},
                   _say(lang, "Killed means {lv} (lethal_at={lvid}); each curve is P(at least one fighter killed) when "
                              "the winner may strike the helpless loser 0 times (after_out=stop: the deciding blow "
                              "alone) up to {n} times (after_out=finish).",
                        "Погибшим здесь считается боец {lv} (lethal_at={lvid}); каждая кривая — P(хотя бы один "
                        "погиб), если победитель может ударить беспомощного от 0 раз (after_out=stop: только "
                        "решающий удар) до {n} раз (after_out=finish).",
                        lv=LEVEL_WORDS[lang][level], lvid=level, n=most))]
    curves = {s: dict(zip(p["finish_attacks"], p["p_killed"].astype(float))) for s, p in leth.groupby("system", sort=False)
              if p["p_killed"].notna().all()}
    if len(curves) >= 2:
        first = ranking({s: c[0] for s, c in curves.items()})
        last = ranking({s: c[most] for s, c in curves.items()})
        blow = {s: float(p["p_deciding_blow"].iloc[0]) for s, p in leth.groupby("system", sort=False) if s in curves}

        def listed(order: list[str], k: int) -> str:
            return ", ".join(f"{_sys(lang, s)} {percent(lang, curves[s][k])}" for s in order)
        out.append(Finding("order", {"stop": first, "finish": last, "p_stop": {s: c[0] for s, c in curves.items()},
                                     "p_finish": {s: c[most] for s, c in curves.items()}, "blow": blow},
                           _say(lang, "Most lethal first, at the deciding blow alone: {a}; with {n} finishing attacks: "
                                      "{b}.",
                                "От самой смертельной системы к наименее: при одном решающем ударе — {a}; при {n} "
                                "добивающих ударах — {b}.", a=listed(first, 0), b=listed(last, most), n=most)))
        passes = overtakes(curves)
        never = [s for s in first if blow[s] <= TOL]
        if passes:
            k, x, y = passes[0]
            text = _say(lang, "The order rests on how many finishing attacks a table allows — it changes {c} between "
                              "0 and {n}, first at {k} {att}, when {x} passes {y} — and on the deciding blow, which "
                              "alone leaves the loser {lv} in this share of decided fights: {b}.",
                        "Порядок зависит от того, сколько добивающих ударов разрешено за столом, — он меняется {c} "
                        "между 0 и {n}, впервые при {k} {att}, когда {x} обгоняет {y}, — и от решающего удара, "
                        "который сам оставляет проигравшего {lv} в такой доле решённых боёв: {b}.",
                        c=_times(lang, len(passes)), n=most, k=k, att=_attacks(lang, k), x=_sys(lang, x),
                        y=_sys(lang, y), lv=LEVEL_WORDS[lang][level], b=_blows(lang, blow))
        else:
            text = _say(lang, "The order holds at every allowance from 0 to {n} finishing attacks: it rests on the "
                              "deciding blow, which alone leaves the loser {lv} in this share of decided fights: {b}.",
                        "Порядок один и тот же при любом числе добивающих ударов от 0 до {n}: он держится на "
                        "решающем ударе, который сам оставляет проигравшего {lv} в такой доле решённых боёв: {b}.",
                        n=most, lv=LEVEL_WORDS[lang][level], b=_blows(lang, blow))
        out.append(Finding("rests_on", {"overtakes": passes, "never_at_the_blow": never}, text))
    missing = [s for s, p in leth.groupby("system", sort=False) if p["p_killed"].isna().any()]
    if missing:
        out.append(Finding("undefined", {"systems": missing},
                           _say(lang, "{n}: not defined, the system has no {lv} level (shown as a gap, not 0).",
                                "{n}: не определено, в системе нет уровня {lv} (на рисунке пропуск, а не 0).",
                                n=_names(lang, missing), lv=LEVEL_WORDS[lang][level])))
    medians = median_to_out(t["hits_to_out"], "hits")
    if len(medians) >= 2:
        many, few = _extremes(medians)
        out.append(Finding("hits", {"fewest": few, "most": many, "medians": medians},
                           _say(lang, "Half of the time a fresh defender is out after {a} damaging hits in {f}, and only "
                                      "after {b} in {m}.",
                                "В половине случаев свежего защитника выводят из строя {a} {wa} в {f}, а в {m} нужно "
                                "{b} {wb}.",
                                a=medians[few], f=_sys(lang, few), b=medians[many], m=_sys(lang, many),
                                wa=_hits_ru(medians[few]), wb=_hits_ru(medians[many]))))
    for rests in assumed(t, lang, "p_killed"):  # said with "how" (what the curve counts): four findings at most
        out[0] = Finding("how", {**out[0].facts, "assumptions": rests.facts}, f"{out[0].text} {rests.text}")
    return out[:4]


def _times(lang: str, n: int) -> str:
    """``once``, ``twice``, ``3 times`` (``один раз``, ``2 раза``, ``5 раз``).

    >>> _times("en", 2), _times("ru", 2), _times("ru", 5), _times("ru", 21)
    ('twice', '2 раза', '5 раз', '21 раз')
    """
    if lang == "en":
        return {1: "once", 2: "twice"}.get(n, f"{n} times")
    if n % 10 == 1 and n % 100 != 11:
        return "один раз" if n == 1 else f"{n} раз"
    return f"{n} раза" if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else f"{n} раз"


def _attacks(lang: str, n: int) -> str:
    """``attack(s)`` / ``добивающем ударе`` agreeing with ``n`` after «при».

    >>> _attacks("en", 1), _attacks("ru", 1), _attacks("ru", 3)
    ('finishing attack', 'добивающем ударе', 'добивающих ударах')
    """
    if lang == "en":
        return "finishing attack" if n == 1 else "finishing attacks"
    return "добивающем ударе" if n % 10 == 1 and n % 100 != 11 else "добивающих ударах"


def _blows(lang: str, blow: Mapping[str, float]) -> str:
    """``2K 100%, ТУН 0.74%, …``: how often the deciding blow alone kills, largest first."""
    return ", ".join(f"{_sys(lang, s)} {percent(lang, blow[s])}" for s in ranking(blow))


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
                                    s=_sys(lang, row["system"]), pp=_pp(lang, float(row[column])))))
    measures = ["check_shift", "d_p_a_wins", "d_p_killed", "d_mean_rounds"]
    values = v[measures].astype(float)
    inert = v[(values.abs() < TOL).all(axis=1)]
    if len(inert):
        names = ", ".join(f"{r} ({_sys(lang, s)})" for s, r in zip(inert["system"], inert["variant"]))
        out.append(Finding("inert", {"variants": list(zip(inert["system"], inert["variant"]))},
                           _say(lang, "{n} of {N} readings change nothing in these checks and this duel: {names}.",
                                "{n} из {N} прочтений ничего не меняют в этих проверках и этом бою: {names}.",
                                n=len(inert), N=len(v), names=names)))
    refused = v[v["d_p_a_wins"].isna()]
    if len(refused):
        names = ", ".join(f"{r} ({_sys(lang, s)})" for s, r in zip(refused["system"], refused["variant"]))
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
        return ", ".join(f"{r.option} ({_sys(lang, r.system)}, {_pp(lang, r.d_p_a_wins)} п.п.)"
                         if lang == "ru" else f"{r.option} ({_sys(lang, r.system)}, {_pp(lang, r.d_p_a_wins)} pp)"
                         for r in rows.itertuples()) or ("ни одного" if lang == "ru" else "none")
    out = [Finding("worth", {"good": list(good["option"]), "bad": list(bad["option"])},
                   _say(lang, "Worth taking in this duel (P(A wins) rises): {g}. Not worth it: {b}.",
                        "Выгодны в этом бою (P(победы A) растёт): {g}. Невыгодны: {b}.", g=listed(good), b=listed(bad)))]
    refused = p[p["d_p_a_wins"].isna()]
    if len(refused):
        names = ", ".join(dict.fromkeys(f"{field_name(lang, r.system, r.policy, r.policy)} ({r.policy}), "
                                        f"{_sys(lang, r.system)}" if lang == "ru" else f"{r.policy} ({_sys(lang, r.system)})"
                                        for r in refused.itertuples()))
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
                                o=row["option"], s=_sys(lang, row["system"]),
                                pp=_pp(lang, float(row["d_p_a_killed"])))))
    return out + assumed(t, lang, "p_a_wins", options=True)


# ------------------------------------------------------------------ groups
LAWS = ((0.75, "flatter than the linear law", "положе линейного закона"),
        (1.25, "near the linear law", "около линейного закона"),
        (1.75, "between the linear and square laws", "между линейным и квадратичным законами"),
        (2.25, "near the square law", "около квадратичного закона"),
        (float("inf"), "steeper than the square law", "круче квадратичного закона"))
"""Where an exponent k sits among Lanchester's laws: the first bound above it."""


def law(lang: str, k: float) -> str:
    """The words for where ``k`` sits among Lanchester's laws.

    >>> law("en", 1.93), law("en", 2.95)
    ('near the square law', 'steeper than the square law')
    """
    return next(en if lang == "en" else ru for bound, en, ru in LAWS if k < bound)


def groups(t: Mapping[str, pd.DataFrame], lang: str) -> list[Finding]:
    """One fighter against a crowd (the fair count and the odds against five), Lanchester's exponent of each
    system, the largest fair count of the ladder, and the systems without group fights."""
    from analysis.tools.crowds import HERO, LADDER, MAX_COUNT, MOOK, missing

    out: list[Finding] = []
    crowd, fair, k = t["crowd"], t["fair_counts"], t["exponents"]
    hero = fair[(fair["a"] == HERO) & (fair["b"] == MOOK)]
    if len(hero):
        counts = {r.system: (None if pd.isna(r.fair_count) else int(r.fair_count)) for r in hero.itertuples()}
        last = crowd[crowd["count"] == crowd["count"].max()]
        at = {r.system: float(r.p_a_wins) for r in last.itertuples()}
        n = int(crowd["count"].max())
        shown = "; ".join(f"{_sys(lang, s)} {c if c is not None else '>' + str(MAX_COUNT)}" for s, c in counts.items())
        against = ", ".join(f"{_sys(lang, s)} {percent(lang, p)}" for s, p in at.items())
        out.append(Finding("crowd", {"fair": counts, "at": at, "count": n},
                           _say(lang, "How many {b} make a fair fight against one {a} (P(A wins) falls below 1/2): "
                                      "{shown}. Against {n} of them A still wins: {against}.",
                                "Сколько {b} уравнивают бой против одного {a} (P(победы A) падает ниже 1/2): {shown}. "
                                "Против {n} из них A всё ещё побеждает: {against}.",
                                a=HERO, b=MOOK, shown=shown, n=n, against=against)))
    if len(k):
        ks = {r.system: (float(r.k), float(r.k_lo), float(r.k_hi)) for r in k.itertuples()}
        each = "; ".join(f"{_sys(lang, s)} k = {number(lang, v, 2)} ({number(lang, lo, 2)}–{number(lang, hi, 2)}), "
                         f"{law(lang, v)}" for s, (v, lo, hi) in ks.items())
        most, least = max(ks, key=lambda s: ks[s][0]), min(ks, key=lambda s: ks[s][0])
        out.append(Finding("lanchester", {"k": {s: v[0] for s, v in ks.items()}, "most": most, "least": least},
                           _say(lang, "A side's strength grows as count^k, Lanchester's exponent (95% interval): "
                                      "{each}. Numbers decide most in {most} and least in {least}.",
                                "Сила стороны растёт как численность^k, показатель Ланчестера (95%-интервал): {each}. "
                                "Численность решает больше всего в {most} и меньше всего в {least}.",
                                each=each, most=_sys(lang, most), least=_sys(lang, least))))
    ends = fair[(fair["a"] == LADDER[-1]) & (fair["b"] == LADDER[0])]
    if len(ends):
        worth = {r.system: (None if pd.isna(r.fair_count) else int(r.fair_count)) for r in ends.itertuples()}
        parts = "; ".join(_say(lang, "{s} {c}", "{s} {c}", s=_sys(lang, s),
                               c=c if c is not None else _say(lang, "more than {m}", "больше {m}", m=MAX_COUNT))
                          for s, c in worth.items())
        out.append(Finding("ladder", {"fair": worth},
                           _say(lang, "The ends of the archetype ladder: the fair count of {b} against one {a} is "
                                      "{p}.",
                                "Края лестницы архетипов: равное число {b} против одного {a} — {p}.",
                                a=LADDER[-1], b=LADDER[0], p=parts)))
    for system, part in t.get("group_readings", pd.DataFrame(columns=["system"])).groupby("system", sort=False):
        rows = list(part.itertuples())
        each = "; ".join(_say(lang, "under {r} A wins {p} against {n}, the fair count is {c} and k = {k}",
                              "при {r} A побеждает в {p} боёв против {n}, равное число — {c}, k = {k}",
                              r=r.reading, p=percent(lang, r.p_a_wins), n=r.count,
                              c=r.fair_count if not pd.isna(r.fair_count) else _say(lang, "more than {m}", "больше {m}",
                                                                                     m=MAX_COUNT),
                              k=number(lang, r.k, 2)) for r in rows)
        facts = {r.reading: {"p_a_wins": float(r.p_a_wins), "k": float(r.k),
                             "fair_count": None if pd.isna(r.fair_count) else int(r.fair_count)} for r in rows}
        out.append(Finding("readings", {"system": system, "readings": facts},
                           _say(lang, "{s}, {a} against {b}, under each reading of its group rules: {each}.",
                                "{s}, {a} против {b}, в каждом прочтении её групповых правил: {each}.",
                                s=_sys(lang, system), a=HERO, b=MOOK, each=each)))
    gone = missing()
    if gone:
        out.append(Finding("missing", {"systems": gone},
                           _say(lang, "Group fights are not modelled yet in {s}, so it has no numbers here.",
                                "Групповые бои пока не смоделированы в {s}, поэтому здесь нет её чисел.",
                                s=_names(lang, gone))))
    return out


# ------------------------------------------------------------------ played well
def played(t: Mapping[str, pd.DataFrame], lang: str) -> list[Finding]:
    """Whether any option matters when both sides play well, per system; the dominated fixed policies; the simple
    rules and the gain they keep; the systems whose decisions are not modelled yet."""
    from analysis.tools.played import missing

    curve, opts = t["played"], t["played_options"]
    out: list[Finding] = []
    moved, still = {}, []
    for system, part in curve.groupby("system", sort=False):
        book = part[part["play"] == "book"].set_index("gap")
        eq = part[part["play"] == "equilibrium"].set_index("gap")
        best = float(opts.loc[opts["system"] == system, "best_gain"].iloc[0])
        shift = max((eq["p_a_wins"] - book["p_a_wins"]).abs().max(), (eq["mean_rounds"] - book["mean_rounds"]).abs().max())
        if shift <= TOL and best <= TOL:
            still.append(system)
        else:
            gap = int(book.index.max())
            model = str(opts.loc[opts["system"] == system, "model"].iloc[0])
            moved[system] = {"best_gain": best, "gap": gap, "book": float(book.loc[gap, "p_a_wins"]),
                             "scripts": model.startswith("scripts"),
                             "equilibrium": float(eq.loc[gap, "p_a_wins"]),
                             "rounds": (float(book.loc[0, "mean_rounds"]), float(eq.loc[0, "mean_rounds"]))}
    if still:
        out.append(Finding("no_option", {"systems": still},
                           _say(lang, "In {s} the book's scripts are already the best play for these fighters: no "
                                      "option changes a number when both sides play well.",
                                "В {s} сценарии книги уже лучшая игра для этих бойцов: ни один приём не меняет "
                                "чисел, когда обе стороны играют лучшим образом.", s=_names(lang, still))))
    for system, m in moved.items():
        out.append(Finding("matters", {"system": system, **m},
                           _say(lang, "In {s} playing well matters: A alone gains {g} points of value by its best "
                                      "reply to the book; when both play well the even fight lasts {r1} rounds instead "
                                      "of {r0}, and at a {gap}-point gap A wins {p1} instead of {p0}.",
                                "В {s} лучшая игра важна: один A выигрывает {g} п. цены лучшим ответом на игру по "
                                "книге; когда обе стороны играют лучшим образом, равный бой длится {r1} раунда вместо "
                                "{r0}, а при разнице в {gap} очка A побеждает в {p1} боёв вместо {p0}.",
                                s=_sys(lang, system), g=_pp(lang, m["best_gain"]),
                                r0=number(lang, m["rounds"][0], 2), r1=number(lang, m["rounds"][1], 2), gap=m["gap"],
                                p0=percent(lang, m["book"]), p1=percent(lang, m["equilibrium"]))
                           + (_say(lang, " Its decisions here are scripts chosen once per duel (its rules' fixed order has no "
                                         "IN to decide with).",
                                   " Решения здесь — сценарии, выбранные на весь бой (при фиксированном порядке "
                                   "его правил решать не по чему: ИН нет).") if m["scripts"] else "")))
    dom = opts[opts["kind"] == "dominated"]
    said = ""
    if len(dom):
        listed = "; ".join(f"{_sys(lang, s)}: {', '.join(dict.fromkeys(p['name']))}"
                           for s, p in dom.groupby("system", sort=False))
        said = _say(lang, "Dominated fixed policies (another value of the same choice does at least as well against "
                          "every script and better against one): {l}.",
                    "Доминируемые политики (другое значение того же выбора не хуже против любого сценария и лучше "
                    "против какого-то): {l}.", l=listed)
    gone = missing()
    rules = opts[(opts["kind"] == "rule") & opts["share_of_gain"].notna()]
    kept = "; ".join(f"{_sys(lang, r.system)}: «{r.text}» ({percent(lang, float(r.share_of_gain))})" if lang == "en"
                     else f"{_sys(lang, r.system)}: решение «{r.name}» ({percent(lang, float(r.share_of_gain))}; "
                          "правило — в таблице)" for r in rules.itertuples())
    if said or kept or gone:
        text = said
        if kept:
            text = (text + " " if text else "") + _say(
                lang, "Simple rules and the share of the equilibrium's gain they keep: {k}.",
                "Простые правила и доля выигрыша равновесия, которую они сохраняют: {k}.", k=kept)
        if gone:
            text = (text + " " if text else "") + _say(lang, "Decisions are not modelled yet in {s}.",
                                                       "Решения пока не смоделированы в {s}.", s=_names(lang, gone))
        out.append(Finding("rules", {"options": sorted(set(zip(dom["system"], dom["name"]))),
                                     "rules": {r.system: r.text for r in rules.itertuples()}, "missing": gone}, text))
    return out


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
        where = (f"{option}, " if option else "") + _sys(lang, sid)
        clauses.append(_say(lang, "{f} ({w}) at {n} = {v} (the lab's: {c}): {x}",
                            "{f} ({w}) при «{n}» = {v} (выбор лаборатории: {c}): {x}", f=FIGURE_WORDS[lang][figure],
                            w=where, n=name, v=" / ".join(value_label(lang, v) for v in g["value"]),
                            c=value_label(lang, lab.iloc[0]) if len(lab) else "—",
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
                                "{s}: {ch} ({a} против {b}) меняет P(успеха) до {p} п.п., а P(хотя бы один погиб) в бою архетипа — до "
                                "{k} п.п.",
                                s=_sys(lang, sid), ch=changed, a=names[0], b=names[1], p=_pp(lang, dp),
                                k=_pp(lang, dk))))
    if not out:
        out.append(Finding("house_none", {}, _say(lang, "The two setups play by the same rules.",
                                                  "Обе настройки играют по одним и тем же правилам.")))
    return out


SECTION_FINDINGS: dict[str, Callable[..., list[Finding]]] = {
    "checks": checks, "worth": worth, "tables": special, "combat": combat, "lethality": lethality, "rules": rules,
    "tactics": tactics, "groups": groups, "played": played,
}
