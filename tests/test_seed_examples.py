"""The worked examples of the Tri-Stat (``000_*``) and К.У.Р.С. (``004_*``) seeds that no other test covers, one
test each, under the default rules; each quotes the seed and recomputes its numbers independently.

Where every worked number of the two seeds is tested:

- Tri-Stat «Тело 4, Разум 7, Дух 5» (acv 5, dcv 3, health 45, shock 9): ``test_combat_tristat.py::
  test_derived_values_follow_the_seed``; its Mind 7 over the d6 limit: ``::test_the_seeds_example_character_breaks_
  the_d6_limit_only``; natural 2 / 2X: ``test_checks.py::test_tristat_naturals_override_the_target``; the critical
  (200% + acv): ``test_combat_tristat.py::test_critical_skips_the_block``; unarmed damage = acv: ``::test_unarmed_
  damage_is_acv_in_both_readings_critical_included``; the specialisation +1: ``::test_specialisations_add_the_book_
  bonus``; the object destroyed at 5 x its armour: ``::test_resolve_walks_a_block_that_breaks_the_object``; the
  damage table, the unfamiliar action (−6 / −2) and the heroism table: here.
- К.У.Р.С. the jump (5 − 1 = 4 against Отлично): ``test_checks.py::test_kurs_jump_example``; the gladiators (both
  readings, the CLI and its note): ``test_combat_kurs.py::test_gladiator_example*``; the graze: ``::test_graze_
  readings``; the soak: ``::test_box_track``; Billy and Willy, the range penalty as a difficulty, the defense clamp
  and the wound table: here.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from analysis.engine.results import Outcomes
from analysis.systems import kurs, tristat
from tests.brute import enumerate_dice, kurs_check, tristat_check


# ----------------------------------------------------------------------------------------------- Tri-Stat
# «Результат кубиков / Процент повреждений»: the seed's table as printed, column by column (lowest, highest 2dX).
SEED_DAMAGE_TABLE = {
    4: {100: (2, 2), 75: (3, 4), 50: (5, 7), 25: (8, 8)},
    6: {100: (2, 3), 75: (4, 6), 50: (7, 10), 25: (11, 12)},
    8: {100: (2, 4), 75: (5, 8), 50: (9, 13), 25: (14, 16)},
    10: {100: (2, 5), 75: (6, 10), 50: (11, 16), 25: (17, 20)},
    12: {100: (2, 6), 75: (7, 12), 50: (13, 19), 25: (20, 24)},
    20: {100: (2, 10), 75: (11, 20), 50: (21, 32), 25: (33, 40)},
}


@pytest.mark.parametrize("die", sorted(SEED_DAMAGE_TABLE))
def test_tristat_damage_table_as_printed(die):
    """Every 2dX result of every die lands in the seed's band; a hit of weapon 10 with acv 5 then does the band's
    percentage of 10, floored, plus 5 («никак не влияет на бонус повреждений от значения Атаки»)."""
    rules = tristat.Rules(die=die, stat_limits="warn")
    att = tristat.Fighter(acv=5, weapon_damage=10)
    for pct, (lo, hi) in SEED_DAMAGE_TABLE[die].items():
        for value in range(lo, hi + 1):
            assert tristat.damage_percent(rules, value) == pct, (die, value)
            assert tristat.raw_damage(rules, att, value) == 10 * pct // 100 + 5
    covered = sorted(v for lo, hi in SEED_DAMAGE_TABLE[die].values() for v in range(lo, hi + 1))
    assert covered == list(range(2, 2 * die + 1))


def test_tristat_unfamiliar_action_plane():
    """«Удержать самолет в воздухе, во время обычного приключения (Х=6) … почти невыполнимая (-6) задача для
    любого … для персонажа, который является поклонником … пенальти может быть всего -2»: with −6 every stat
    1..6 leaves a target <= 0, so only the natural 2 succeeds (1 in 36, «почти»); −2 on Mind 7 (the seed's
    example character) leaves 5: 10 rolls in 36."""
    for stat in range(1, 7):
        res = tristat.check(tristat.Rules(), tristat.CheckArgs(target=stat - 6))
        assert res.p_success == pytest.approx(1 / 36, abs=1e-15)
    fan = tristat.check(tristat.Rules(), tristat.CheckArgs(target=7 - 2))
    by_hand = sum(p for (a, b), p in enumerate_dice(range(1, 7), 2) if a + b <= 5)
    assert by_hand == Fraction(10, 36) == tristat_check(6, 5)[0]
    assert fan.p_success == pytest.approx(float(by_hand), abs=1e-15)


def test_tristat_heroism_table():
    """«Недочеловек … d4, Обычный человек … d6, Совершенный человек … d8, Супер человек … d10, Нечеловек … d12,
    Бог … d20»: the dice the ruleset allows and the level each stands for."""
    assert tristat.HEROISM == {4: "subhuman", 6: "human", 8: "post-human", 10: "superhuman", 12: "inhuman",
                               20: "godlike"}
    assert tristat.DICE == (4, 6, 8, 10, 12, 20) and tristat.Rules().die == 6


# ------------------------------------------------------------------------------------------------ К.У.Р.С.
def _total(rules: kurs.Rules, args: kurs.CheckArgs, rolled: int) -> int:
    """The lab's total of a check when the dice show ``rolled``."""
    roll = kurs.dice(rules)
    return int(kurs.outcomes(rules, args).key[list(roll.support).index(rolled)])


def test_kurs_billy_and_willy():
    """«Билли с Хорошим(+2) навыком Выпивки … получил бонус +2 … Билли сделал бросок -1, а Вилли +1. Итого … у
    Билли была 2+2-1=3 (Очень хорошая), а у Вилли 3+1=4 (Отличная). Несмотря на хитрости справедливость
    восторжествовала.»"""
    rules = kurs.Rules()
    billy, willy = kurs.CheckArgs(skill=2, mod=2), kurs.CheckArgs(skill=3)
    b, w = _total(rules, billy, -1), _total(rules, willy, 1)
    assert (b, w) == (2 + 2 - 1, 3 + 1)
    assert (kurs.LADDER[b], kurs.LADDER[w]) == ("Очень хорошо", "Отлично")
    one = np.ones(1)
    win, tie, lose, margin = Outcomes(one, np.array([b]), np.array([b])).against(Outcomes(one, np.array([w]),
                                                                                       np.array([w])))
    assert (win, tie, lose, margin.to_dict()) == (0.0, 0.0, 1.0, {-1: 1.0})


@pytest.mark.parametrize("skill", [-2, 0, 3, 6])
def test_kurs_range_penalty_is_the_difficulty(skill):
    """«вместо сложности Отлично (+4) для цели расположенной на некотором отдалении, к броску применяется штраф -4
    … но при этом сравнивается результат … со сложностью Нормально (0)»: the same check either way."""
    rules = kurs.Rules()
    as_penalty = kurs.check(rules, kurs.CheckArgs(skill=skill, mod=-4, difficulty=0))
    as_difficulty = kurs.check(rules, kurs.CheckArgs(skill=skill, difficulty=4))
    p, margins, complication = kurs_check(skill, 4)
    for res in (as_penalty, as_difficulty):
        assert res.p_success == pytest.approx(float(p), abs=1e-12)
        assert res.extra["p_complication"] == pytest.approx(float(complication), abs=1e-12)
        assert res.distribution.to_dict() == pytest.approx({m: float(q) for m, q in margins.items()}, abs=1e-12)


def test_kurs_defense_clamp_as_written():
    """«Бросок Защиты во всех случаях принимается: при результате выше 0 - в соответствии с полученным значением,
    при результате от 0 до -4 включительно - бросок равным 0, при значениях -5, -6, равным -1.»  (The gladiator
    example breaks this rule; ``test_combat_kurs.py::test_gladiator_example`` shows both readings.)"""
    seed = {r: (r if r > 0 else 0 if r >= -4 else -1) for r in range(-6, 7)}
    rolls = np.arange(-6, 7)
    assert dict(zip(rolls.tolist(), kurs.clamp_defense(kurs.Rules(), rolls).tolist())) == seed
    assert kurs.clamp_defense(kurs.Rules(defense_clamp=False), rolls).tolist() == rolls.tolist()


def test_kurs_wound_table_as_printed():
    """«| Урон | 1-2 | 3-4 | 5-6 | 7 | 8 | 9+ |» and «| Ячейки | ОООО | ОО | О | О | О | О |»: the box one hit
    of each damage marks on an unhurt fighter (without the fatigue soak, which the next paragraph adds), and
    how many hits of each level the track holds before the next heavier box is marked."""
    rules = kurs.Rules(fatigue_soak="never")
    seed = {1: "fatigue", 2: "fatigue", 3: "light", 4: "light", 5: "medium", 6: "medium", 7: "heavy",
            8: "incapacitated", 9: "dying", 12: "dying"}
    for damage, level in seed.items():
        _, marked, _ = kurs.mark(rules, (0,) * 6, damage)
        assert kurs.LEVELS[marked] == level, damage
    for damage, boxes in ((1, 4), (3, 2), (5, 1), (7, 1)):
        state, level = (0,) * 6, kurs.level_of(rules, damage)
        for _ in range(boxes):
            state, marked, _ = kurs.mark(rules, state, damage)
            assert marked == level
        assert kurs.mark(rules, state, damage)[1] == level + 1   # «вычёркивает следующее более тяжёлое ранение»
