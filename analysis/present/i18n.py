"""Words of the report, figures and notebooks in English and Russian, with the systems' own terms.

Labels (:func:`label`), system names (:func:`system_name`), dice as each language
writes them (:func:`dice`), numbers with the language's decimal mark
(:func:`number`, :func:`percent`, :func:`odds`), a glossary of the seeds'
abbreviations, and a one-line explanation of every rule field
(:func:`field_text`; Russian texts here, English from the field's own help).

>>> label("ru", "value", "tun")
'Предел'
>>> dice("ru", "2d6"), dice("ru", "1d6x3"), dice("en", "3d6"), dice("ru", "2K"), dice("ru", "3dK")
('2к6', '1к6×3', '3d6', '2К', '3dК')
>>> odds("ru", 1 / 36), odds("en", 0.5), odds("en", 0.0)
('2,8% (1 из 36)', '50%', '0')
"""

from __future__ import annotations

import re

LANGS = ("en", "ru")
RARE = 0.05
"""Probabilities below this (or above 1 - this) are also shown as "1 in N"."""
NOISE = 1e-12
"""Closer than this to 0 or 1 is 0 or 1: the float noise of exact sums."""

_COMMON = {
    "en": {
        "p_success": "P(success)",
        "modifier": "modifier from the 50% point",
        "value": "value",
        "outcome": "outcome",
        "probability": "probability",
        "delta_p": "P(success) bought by +1 (percentage points)",
        "spread": "spread of the outcome (std)",
        "swing_points": "points of the system's own value from P(success) 10% to 90%",
        "system": "system",
        "rounds": "round of the first incapacitation",
        "p_win": "P(A wins)",
        "mean_rounds": "mean rounds to the first out",
        "skill_gap": "skill gap (points of A's combat skills over B's)",
        "p_killed": "P(at least one killed)",
        "p_killed_dying": "P(at least one fighter dying or dead)",
        "p_killed_dead": "P(at least one fighter dead)",
        "finish_attacks": "finishing attacks allowed on the helpless loser (0: the fight stops at the first out)",
        "deciding_blow_dying": "P(the deciding blow leaves the loser dying | the fight is decided)",
        "deciding_blow_dead": "P(the deciding blow leaves the loser dead | the fight is decided)",
        "hits": "damaging hits taken",
        "attacks": "attacks made",
        "p_out_by": "P(out by then)",
        "effect": "effect",
        "dice": "dice",
        "hit_edge": "hit edge: P(A hits) - P(B hits)",
        "check_shift": "check table:\nlargest ΔP(success)",
        "d_p_a_wins": "matched duel:\nΔP(A wins)",
        "d_p_killed": "matched duel:\nΔP(killed)",
        "d_mean_rounds": "matched duel:\nΔ mean rounds",
        "not_defined": "not defined",
        "mine": "mine",
        "baseline": "baseline",
    },
    "ru": {
        "p_success": "P(успеха)",
        "modifier": "модификатор от точки 50%",
        "value": "значение",
        "outcome": "результат",
        "probability": "вероятность",
        "delta_p": "прирост P(успеха) от +1 (процентные пункты)",
        "spread": "разброс результата (ст. откл.)",
        "swing_points": "очков собственной шкалы системы от P(успеха) 10% до 90%",
        "system": "система",
        "rounds": "раунд первого вывода из строя",
        "p_win": "P(победы A)",
        "mean_rounds": "среднее число раундов до первого выбывшего",
        "skill_gap": "разница в боевых навыках (очки A сверх B)",
        "p_killed": "P(хотя бы один погиб)",
        "p_killed_dying": "P(хотя бы один боец при смерти или мёртв)",
        "p_killed_dead": "P(хотя бы один боец мёртв)",
        "finish_attacks": "разрешено добивающих ударов по беспомощному (0: бой кончается на первом выбывшем)",
        "deciding_blow_dying": "P(решающий удар оставляет проигравшего при смерти | бой решён)",
        "deciding_blow_dead": "P(решающий удар убивает проигравшего | бой решён)",
        "hits": "пропущено ранящих ударов",
        "attacks": "сделано атак",
        "p_out_by": "P(выведен из строя к этому моменту)",
        "effect": "эффект",
        "dice": "кубики",
        "hit_edge": "перевес в попаданиях: P(попал A) − P(попал B)",
        "check_shift": "таблица проверок:\nнаибольшее ΔP(успеха)",
        "d_p_a_wins": "равный бой:\nΔP(победы A)",
        "d_p_killed": "равный бой:\nΔP(хотя бы один погиб)",
        "d_mean_rounds": "равный бой:\nΔ среднего числа раундов",
        "not_defined": "не определено",
        "mine": "моя настройка",
        "baseline": "базовая",
    },
}

_SYSTEM_TERMS = {
    "en": {
        "tristat": {"name": "Tri-Stat dX", "short": "Tri-Stat", "value": "target (stat + skill)", "outcome": "margin",
                    "unit": "margin points"},
        "onesix": {"name": "2K, rule of 1 and 6", "short": "2K", "value": "action rating (RD)", "outcome": "success level (U)",
                   "unit": "success levels"},
        "tun": {"name": "TUN", "short": "TUN", "value": "limit", "outcome": "effectiveness (E)", "unit": "effectiveness points"},
        "kurs": {"name": "K.U.R.S.", "short": "K.U.R.S.", "value": "skill", "outcome": "margin", "unit": "margin points"},
    },
    "ru": {
        "tristat": {"name": "Tri-Stat dX", "short": "Tri-Stat", "value": "Цель (стат + навык)", "outcome": "Степень успеха",
                    "unit": "очки степени успеха"},
        "onesix": {"name": "2К, правило 1 и 6", "short": "2К", "value": "Рейтинг действия (РД)", "outcome": "Успешность (У)",
                   "unit": "уровни успешности"},
        "tun": {"name": "ТУН", "short": "ТУН", "value": "Предел", "outcome": "Эффективность (Э)", "unit": "очки эффективности"},
        "kurs": {"name": "К.У.Р.С.", "short": "К.У.Р.С.", "value": "Навык", "outcome": "Величина успеха", "unit": "очки успеха"},
    },
}

GLOSSARY = {
    "en": (
        ("Tri-Stat dX", "roll-under 2dX against stat + skill; X is the campaign's die (d4 … d20)"),
        ("2K", "the 2K system with the rule of 1 and 6: two d6, a 1 adds 0, a 6 adds 6 and rolls again"),
        ("RD / RT / U", "2K: action rating (attribute + skill) / test result (RD + modifiers + 2K) / success level "
                        "(1 at RT 15, +1 per 3 points above)"),
        ("IN", "2K: initiative, the fight's clock (an attack costs 6, a parry 3)"),
        ("TUN", "the TUN system (its character sheet groups: Body, Mind, Unusual); roll 3d6 under the limit"),
        ("E", "TUN: effectiveness = limit − roll"),
        ("K.U.R.S.", "roll 3dK over the difficulty; dK is a d6 labelled −2, −1, 0, 0, +1, +2 by default"),
        ("out / dying / dead", "cannot act / dies without aid / dead; not every system has all three"),
        ("lab assumption", "a number the lab chose where no source text gives one (its reason and plausible "
                           "values: `dicelab systems`); each figure names the ones it rests on"),
    ),
    "ru": (
        ("Tri-Stat dX", "бросок 2кX «под» Цель (стат + навык); X — кубик кампании (к4 … к20)"),
        ("2К", "система 2К с правилом 1 и 6: два к6, единица даёт 0, шестёрка — 6 и ещё один кубик"),
        ("РД / РТ / У", "2К: рейтинг действия (атрибут + навык) / результат теста (РД + модификаторы + 2К) / "
                        "уровень успешности (1 при РТ 15, +1 за каждые 3 пункта сверх)"),
        ("ИН", "2К: инициатива, часы боя (атака стоит 6, парирование 3)"),
        ("ТУН", "система ТУН (группы показателей: Телесное, Умственное, Необычное); бросок 3к6 «под» Предел"),
        ("Э", "ТУН: эффективность = Предел − бросок"),
        ("К.У.Р.С.", "бросок 3dК против сложности; dК — к6 с гранями −2, −1, 0, 0, +1, +2 по умолчанию"),
        ("вывод из строя / при смерти / гибель", "не может действовать / умрёт без помощи / мёртв; "
                                                "не у каждой системы есть все три"),
        ("допущение лаборатории", "число, выбранное лабораторией там, где исходный текст его не даёт (причина и "
                                  "правдоподобные значения: `dicelab systems`); каждый рисунок называет те, на которые "
                                  "опирается"),
    ),
}
"""The report's glossary: term and meaning per language; a command in backticks is shown as code."""

_OPTIONS_RU = {
    "after_out": "что после вывода из строя: бой кончается (stop) или победитель добивает беспомощного (finish), "
                 "пока тот не погибнет или не кончатся удары (finish_attacks)",
    "lethal_at": "что считается гибелью: «при смерти» (dying) — этот уровень есть у всех четырёх систем — или "
                 "только явная смерть (dead)",
    "finish_attacks": "after_out=finish: не больше стольких атак по беспомощному",
}

FIELDS_RU: dict[str, dict[str, str]] = {
    "tristat": {
        "die": "X в броске 2кX, один на всю кампанию (к4 — ниже человека … к20 — богоподобные)",
        "contest_tie": "равенство в состязании: ничья (draw) или переброс (reroll)",
        "cv_rounding": "округление (Тело + Разум + Дух)/3: вниз (floor) или до ближайшего (nearest)",
        "initiative_once": "инициатива бросается один раз за бой, а не каждый раунд",
        "acv_in_max": "бонус Боевого значения атаки входит в максимум урона (масштабируется таблицей)",
        "damage_rounding": "округление процента урона: вниз (floor) или до ближайшего (nearest)",
        "shock_rule": "замена лаборатории для правила Шока: удар больше Здоровья/5 требует проверки Тела",
        "block_rule": "успешный блок: броня предмета поглощает урон (absorb) или блок отменяет удар (negate)",
        "block_armor": "броня блокирующего предмета",
        "block_ranged": "блок работает и против атак дальнего боя (боевая техника)",
        "weapon_range": "оружие ближнего (melee) или дальнего (ranged) боя",
        "stance": "тактика: обычная (normal) или тотальная защита (total_defence) — +2 к защите вместо атаки",
        "stat_limits": "пределы статов по кубику X: отвергать (enforce) или только предупреждать (warn)",
        "critical_multiplier": "множитель максимального урона при критическом попадании (книга: 2 = 200%)",
        "target": "Цель проверки: стат + навык + модификатор; успех, если 2кX ≤ Цели",
        "mod": "модификатор проверки",
        "body": "Тело", "mind": "Разум", "soul": "Дух",
        "acv": "Боевое значение атаки (по умолчанию из статов)",
        "dcv": "Боевое значение защиты (по умолчанию атака − 2)",
        "health": "Здоровье (по умолчанию (Тело + Дух) × 5)",
        "attack_bonus": "боевой навык атаки", "defense_bonus": "боевой навык защиты",
        "weapon_damage": "максимальный урон оружия", "armor": "броня (вычитается из урона)",
        "block": "блокирует предметом (+2 к защите)",
        "critical_acv": "критическое попадание: множитель × максимум оружия + БЗА один раз (once) или дословно "
                        "2 × (оружие + БЗА) + БЗА при acv_in_max=true",
        "dice_count": "кубиков в броске (2 в 2кX): естественные — все единицы и все X",
        "damage_percents": "проценты максимума урона в таблице урона, от лучшей полосы",
        "damage_bands": "верхние границы 2кX для полос таблицы урона; как в книге (book) — столбец текста для кубика",
        "health_per_point": "Здоровье = (Тело + Дух) × это число",
        "dcv_offset": "Боевое значение защиты = атака − это число",
        "dying_percent": "«при смерти» при Здоровье ≤ −(этот % от максимума)",
        "shock_divisor": "значение Шока = максимум Здоровья / это число (shock_rule)",
        "specialisation_bonus": "бонус подходящей специализации боевого навыка",
        "block_bonus": "бонус блока к проверке защиты",
        "block_break_multiple": "урон ≥ столько × броня предмета разрушает предмет",
        "total_defence_bonus": "тотальная защита: бонус к каждой проверке защиты за отданную атаку",
        "extra_defense_penalty": "каждая следующая проверка защиты в раунде: накопительный штраф (−4, −8, …); "
                                 "считаются только сделанные броски защиты",
        "total_defence_rounds": "при тотальной защите бой кончается выводом из строя или через столько раундов",
        "extra_attacks": "Атрибут «Дополнительные Атаки»: сколько атак сверх первой в каждом действии",
        "target": "в групповом бою — кого атакует: способного врага с наименьшим Здоровьем (weakest), случайного "
                  "(random), с наибольшей атакой (strongest) или того, кого в этом раунде атаковали реже всех "
                  "(spread)",
        "attack_specialty": "специализация навыка атаки (+1)", "defense_specialty": "специализация навыка защиты (+1)",
    },
    "onesix": {
        "rating": "рейтинг действия РД = атрибут + навык",
        "mod": "модификаторы (спокойная обстановка +3, штраф состояния −n …)",
        "skilled": "есть подходящий навык; без него У не выше предела (по книге 1)",
        "extra_die_ones": "единица на дополнительном кубике даёт 0 (zero) или 1 (count)",
        "explode_depth": "не больше N дополнительных кубиков; explode_depth=none — без предела",
        "excess_over": "превышение для урона: над 15 (threshold) или над РТ защиты (defense)",
        "armor_wear": "броня изнашивается от попаданий",
        "in_economy": "бой идёт по ИН (экономия инициативы); in_economy=false — старый фиксированный порядок",
        "in_die": "1К в ИН: по правилу 1 и 6 (one_six), единица — 0 без взрыва (one_zero), среднее 10/3, или обычный "
                  "к6 (d6)",
        "in_explode_depth": "не больше N дополнительных кубиков в 1К при in_die=one_six; in_explode_depth=none — без "
                            "предела; ограничение 2К (explode_depth) на него не действует",
        "parry_window": "парирование успевает, если ИН защитника ниже ИН атакующего в начале атаки не больше чем "
                        "на столько («Дейзи отстает от него на 3 ИН, но успевает парировать»; parry_window=any — "
                        "при любом отставании)",
        "simultaneous_parry": "при равной ИН оба атакуют и ни один не парирует одновременную атаку "
                              "(simultaneous_parry=false, «чтобы не дать Дейзи возможности реагировать»); "
                              "simultaneous_parry=true — каждый парирует, если осталось 3 ИН",
        "group_timing": "время группового боя: экономия ИН дуэли для всех бойцов (economy), каждый раунд ИН = "
                        "рефлексы + 1К − штраф по убыванию, одна атака и не больше одного парирования (order), или "
                        "то же по средней ИН = рефлексы + 3 − штраф для отрядов (average); в дуэли не действует",
        "gear_faults": "две единицы на базовых кубиках атаки — тест надёжности оружия (рейтинг + 2К против 15); "
                       "провал — оружие сломано, дальше кулаки (ПС = тренированность, шок)",
        "in_carry": "остаток ИН до 3 переносится в следующий раунд",
        "in_penalty": "штраф ранений к ИН: сразу (immediate) или только при броске (roll)",
        "in_loss": "потеря действий: одна за удар (one_per_hit) или каждая отдельно (stack)",
        "ballistic_power": "баллистика: сравнивать с защитой полную силу (total) или силу оружия (weapon)",
        "extended_failed": "протяжённое действие: проваленный этап считается У 1 (count) или пропускается (skip)",
        "success_threshold": "порог успеха РТ (книга: 15)",
        "level_step": "шаг уровня успешности: +1 У за каждые N пунктов сверх порога (книга: 3)",
        "unskilled_max_level": "наибольшая У без подходящего навыка (книга: 1)",
        "fumble_below": "РТ ниже этого — серьёзная неудача (книга: 6)",
        "test_dice": "кубиков в тесте (книга: 2К); все единицы — ошибка снаряжения",
        "average_in_bonus": "средняя инициатива = рефлексы + столько (книга: 3)",
        "attack_cost": "ИН на атаку, любое полное действие (книга: 6)",
        "parry_cost": "ИН на парирование/уклонение; без стольких ИН не парирует (книга: 3)",
        "action_lost": "ИН за потерянное действие: останавливающий эффект, болевой шок (книга: 6)",
        "attack_min_in": "наименьшая ИН, с которой начинают атаку (книга: 4; недостача — долг)",
        "carry_cap": "остаток ИН, переносимый в следующий раунд, не больше (книга: 3)",
        "carry_floor": "долг ИН переносится не глубже (граница лаборатории: −20)",
        "track_length": "уровней в шкале ран и шока; выше — вне боя (книга: 6)",
        "reserve": "жизненный резерв сверх шкалы: раны в нём — при смерти, следующая рана — гибель (книга: 3)",
        "damage_step": "уровни = ⌈(сила − поглощение) / столько⌉ (книга: 3)",
        "wear_step": "износ брони от попадания силой не меньше её рейтинга (книга: 1)",
        "wear_double_step": "износ брони от попадания вдвое сильнее её рейтинга (книга: 3)",
        "stopping_effect": "останавливающий эффект: уровней от одного удара больше тренированности — теряет действие",
        "pain_shock": "болевой шок: раны/шок выше личности — теряет действие",
        "attack_rating": "рейтинг атаки", "defense_rating": "рейтинг парирования/уклонения (0 — без защиты)",
        "reaction": "реакция", "intellect": "интеллект", "reflexes": "рефлексы (по умолчанию реакция + интеллект)",
        "training": "тренированность", "personality": "личность", "armor": "поглощение брони",
        "protection": "защита брони от баллистики", "weapon_ps": "поражающая сила оружия (ПС)",
        "weapon_class": "класс оружия: раны (wound), шок (shock) или баллистика (ballistic)",
        "parry": "парирует всегда (always) или никогда (never)",
        "target": "кого атакует в групповом бою: самого слабого — наибольший штраф, затем больше Ран (weakest), "
                  "случайного (random), самого опасного — наибольший рейтинг атаки (strongest) или того, кого меньше "
                  "всех атаковали в этом раунде (spread); в дуэли не действует",
        "gear_rating": "рейтинг снаряжения для теста надёжности при двух единицах (в бою — при gear_faults=true; "
                       "допущение лаборатории: 8 — средний бросок 2К проходит)",
    },
    "tun": {
        "limit": "Предел: характеристика + особенность + бонусы − штрафы",
        "success_rule": "успех, если бросок < Предела (lt) — так в тексте — или ≤ Предела (le) — так в таблице",
        "crits": "необязательные критические броски: минимум — успех с бонусом к Э, максимум — провал",
        "last_word": "правило последнего слова: выведенный из строя до своего хода ещё действует раз (+1 травма)",
        "dying_last_word": "последнее слово и для того, у кого травма > 2 × объёма",
        "turn_order": "порядок ходов: по Телу (body), броском (roll) или по Реакции (reaction)",
        "ranged_defense": "Защита цели против дальнего боя: если цель обороняется (defends) — рефлекторное уклонение, "
                          "как в броске ножа, — или если движется (moving)",
        "aim_effects": "прицельное попадание обезоруживает (рука, кисть), обездвиживает (нога, стопа, колено) или "
                       "оглушает (голова): всегда, также выводящим из строя (always), только если цель осталась в "
                       "строю (while_up), или никогда — только штраф (none)",
        "size_bonus": "поправка за размер в обе стороны",
        "distance": "дистанция, м (дальний бой: −1 за каждые 10 м после первых 10; ближний — не дальше "
                    "досягаемости)",
        "death_multiple": "гибель при травме больше стольких объёмов (книга: 2)",
        "body": "ТХ — телесная характеристика", "mind": "УХ — умственная характеристика",
        "unusual": "НХ — необычная характеристика", "attack_feature": "особенность (навык) атаки",
        "extra_volume": "дополнительный объём", "extra_defense": "дополнительная защита",
        "defends": "осознанно обороняется (Защита Тела против атак)",
        "weapon_n": "множитель урона оружия (Э × n + b)", "weapon_b": "добавка урона оружия (Э × n + b)",
        "dice": "кубики проверки: 3к6, 1к20 или 1к6×3", "ranged": "оружие дальнего боя",
        "size": "размер (человек 0, кошка 1, банка 3, коробок 4)", "reaction": "Реакция (для порядка ходов)",
        "moving": "движется (−1 к своим атакам; цель в движении при ranged_defense=moving)",
        "aim": "прицельный выстрел: рука −2, нога −1, голова −3, кисть −6, стопа −5, колено −5; попадание "
               "обезоруживает, обездвиживает или оглушает (aim_effects)",
        "turn_policy": "ход: действовать (act), отложить (delay) или инициативный пропуск (initiative_skip)",
        "target": "кого атакует в групповом бою: самого слабого — меньше всего объёма Тела осталось (weakest), "
                  "случайного (random), самого опасного — больше ТХ + особенность атаки (strongest) или того, кого "
                  "меньше всех атаковали в этом раунде (spread); в дуэли не действует",
        "defense_divisor": "Защита Тела = ⌈ТХ / это число⌉ + дополнительная защита",
        "crit_bonus_3d6": "бонус к Э критического успеха на 3к6", "crit_bonus_1d20": "бонус к Э критического успеха на 1к20",
        "crit_bonus_1d6x3": "бонус к Э критического успеха на 1к6×3", "actions_per_turn": "действий за ход",
        "last_word_actions": "действий последнего слова", "last_word_trauma": "травма Тела за действие последнего слова",
        "initiative_skip_cost": "на столько действий меньше в первом раунде после инициативного пропуска",
        "moving_penalty": "штраф к атакам движущегося бойца", "distance_step": "метров в полосе дистанции (первая — "
                                                                                "без штрафа)",
        "distance_penalty": "штраф за каждую полосу дистанции после первой (дальний бой)",
        "aim_penalty_arm": "штраф выстрела в руку", "aim_penalty_leg": "штраф выстрела в ногу",
        "aim_penalty_head": "штраф выстрела в голову", "aim_penalty_hand": "штраф выстрела в кисть",
        "aim_penalty_foot": "штраф выстрела в стопу", "aim_penalty_knee": "штраф выстрела в колено",
        "stun_actions": "сколько действий теряет оглушённый попаданием в голову (допущение лаборатории: 1; новое "
                        "попадание продлевает, а не складывается)",
        "melee_reach": "досягаемость ближнего боя, м (допущение лаборатории: 2); бойца ближнего боя дальше неё "
                       "лаборатория не принимает — в дуэли нет перемещения",
    },
    "kurs": {
        "skill": "Навык (лестница: Нормально 0 … Великолепно +5)",
        "difficulty": "Сложность, обычно 0 (Нормально)",
        "mod": "техника, свойства, бонусы и штрафы",
        "dk_faces": "грани dК: по умолчанию −2, −1, 0, 0, +1, +2; dk_faces=fudge — −1, 0, +1; dk_faces=d5 — −2 … +2",
        "defense_clamp": "бросок защиты ограничен: >0 как есть, −4…0 → 0, ≤ −5 → −1 (defense_clamp=false — как в "
                         "примере)",
        "luck_tokens": "жетоны удачи (+3) на бойца, тратятся на проверку, проваленную на 3 или меньше",
        "wound_penalty": "штрафы ран: сумма общих (sum), худший (worst) или местные −1/−3/−5 (local)",
        "fatigue_soak": "ячейка усталости поглощает 1 урона вместе с ячейкой раны",
        "type_bonus": "бонус типа оружия: только если удар пробил броню (penetrating) или всегда (always)",
        "graze": "задевание: по тексту (text), не больше 1 (capped) или всегда 1 + разница масштабов (fixed)",
        "trade_cost": "цена манёвра: осложнение (complication) — не моделируется — или ячейка усталости (fatigue)",
        "no_defense_bonus": "бонус к атакам того, кто не защищается (замена лаборатории: +2)",
        "surprise": "первая атака стороны A (a) или B (b) — односторонняя: цель не подозревает",
        "track": "ячейки трека состояния: усталость, лёгкая, средняя, тяжёлая, недееспособен, при смерти",
        "damage_table": "наименьший урон, отмечающий каждый уровень (по книге: 1–2 усталость, 3–4 лёгкая, "
                        "5–6 средняя, 7 тяжёлая, 8 недееспособен, 9+ при смерти)",
        "general_penalty": "общий штраф (боль ко всем действиям) за ячейку усталости, лёгкой, средней, тяжёлой",
        "local_penalty": "местный штраф (боль и повреждение) за ячейку усталости, лёгкой, средней, тяжёлой",
        "dice_count": "число dК в проверке (3dК)",
        "luck_bonus": "бонус жетона удачи к проверке",
        "defense_clamp_zero": "ограничение защиты: броски от этого значения до 0 считаются 0",
        "defense_clamp_low": "ограничение защиты: броски ниже считаются этим значением",
        "extra_defense_penalty": "накопительный штраф каждой защиты после первой со своего хода (в групповом бою)",
        "target": "кого атакует в групповом бою: самого слабого — самая тяжёлая отмеченная ячейка, сравнение от "
                  "тяжёлых уровней (weakest), случайного (random), самого опасного — наибольший навык атаки "
                  "(strongest) или того, кого меньше всех атаковали в этом раунде (spread); в дуэли не действует",
        "graze_damage": "задевание наносит не больше этого (или это + разница масштабов)",
        "soak_points": "сколько урона поглощает ячейка усталости рядом с ячейкой раны",
        "trade_bonus": "манёвр: +это к атаке за −это к защите (или наоборот)",
        "trade_fatigue": "цена манёвра trade_cost=fatigue: ячеек усталости за ход с манёвром",
        "dodge_fatigue": "ячеек усталости за уклонение сверхусилием",
        "surprise_first": "при внезапности напавшая сторона ходит первой (surprise_first=false — решает бросок "
                          "очерёдности)",
        "attack_skill": "навык атаки", "defense_skill": "навык защиты", "strength": "сила",
        "health": "здоровье", "scale": "масштаб", "weapon": "рейтинг оружия",
        "weapon_type_bonus": "бонус типа оружия (например +2 реж.)",
        "muscle_powered": "оружие на мускульной силе (сила добавляется к урону)", "armor": "броня",
        "shield": "щит (бонус к защите)", "agility": "ловкость (для очерёдности)",
        "stance": "манёвр, объявляемый на своём ходу (до первого хода — обычный): обычный, атакующий (+1/−1), "
                  "защитный (−1/+1) или без защиты (no_defense)",
        "effort_dodge": "уклонение за ячейку усталости: никогда (never), от вывода из строя (out) или от любой "
                        "раны (wound)",
    },
}


def label(lang: str, key: str, system: str | None = None) -> str:
    """A label in ``lang``; with ``system``, the system's own term for ``name``, ``value``, ``outcome`` or ``unit``."""
    if system is not None and key in _SYSTEM_TERMS[lang].get(system, {}):
        return _SYSTEM_TERMS[lang][system][key]
    return _COMMON[lang][key]


def system_name(lang: str, system: str) -> str:
    """The system's name as the language writes it.

    >>> system_name("ru", "onesix")
    '2К, правило 1 и 6'
    """
    return label(lang, "name", system)


_DICE = re.compile(r"(\d*)d(\d+|[XKК])(x\d+)?|\b(\d)K\b")


def dice(lang: str, text: str) -> str:
    """Dice notation in ``lang``: Russian writes ``3к6`` and ``1к6×3``; К.У.Р.С.'s own ``3dК`` stays as its seed
    writes it."""
    if lang != "ru":
        return text

    def one(m: re.Match) -> str:
        if m.group(4):
            return f"{m.group(4)}К"
        if m.group(2) in "KК":
            return f"{m.group(1)}dК"
        times = m.group(3).replace("x", "×") if m.group(3) else ""
        return f"{m.group(1)}к{m.group(2)}{times}"

    return _DICE.sub(one, text)


def number(lang: str, x: float, digits: int = 3) -> str:
    """A number with ``digits`` decimals and the language's decimal mark (``0,583`` in Russian).

    >>> number("ru", -0.5834), number("en", 2.0, 1)
    ('-0,583', '2.0')
    """
    text = f"{x:.{digits}f}"
    return text.replace(".", ",") if lang == "ru" else text


def percent(lang: str, p: float) -> str:
    """A probability as a percentage: one decimal from 1%, two significant digits below, exact 0 and 100.

    >>> percent("en", 0.0046), percent("ru", 0.5834), percent("en", 1.0)
    ('0.46%', '58,3%', '100%')
    """
    if p <= NOISE:
        return "0"
    if p >= 1 - NOISE:
        return "100%"
    value = p * 100
    text = f"{value:.1f}" if value >= 1 else f"{value:.2g}"
    if text.endswith(".0") and value >= 10:
        text = text[:-2]
    return (text.replace(".", ",") if lang == "ru" else text) + "%"


def odds(lang: str, p: float | None) -> str:
    """A probability as a designer reads it: percent, plus "1 in N" when rare (or "fails 1 in N" when nearly sure);
    ``None`` (not applicable) is a dash."""
    if p is None or p != p:
        return "—"
    shown = percent(lang, p)
    if NOISE < p < RARE:
        return f"{shown} ({'1 из' if lang == 'ru' else '1 in'} {_count(lang, 1 / p)})"
    if 1 - RARE < p < 1 - NOISE:
        return f"{shown} ({'провал 1 из' if lang == 'ru' else 'fails 1 in'} {_count(lang, 1 / (1 - p))})"
    return shown


def _count(lang: str, n: float) -> str:
    """A rounded count with the language's thousands separator (a narrow space in Russian)."""
    text = f"{n:,.0f}"
    return text.replace(",", "\u202f") if lang == "ru" else text


def field_name(lang: str, system: str, name: str, help_text: str = "", most: int = 48) -> str:
    """A field's short name: the first clause of :func:`field_text` (up to a colon or semicolon), cut at a word to
    about ``most`` characters.

    >>> field_name("ru", "tristat", "damage_rounding")
    'округление процента урона'
    """
    head = re.split(r"[:;]", field_text(lang, system, name, help_text), maxsplit=1)[0].strip()
    if len(head) <= most:
        return head
    return head[:most].rsplit(" ", 1)[0] + "…"


def field_text(lang: str, system: str, name: str, help_text: str = "") -> str:
    """One line explaining a rule field or fighter parameter in ``lang`` (English: the field's own help)."""
    if lang == "ru":
        return FIELDS_RU.get(system, {}).get(name) or _OPTIONS_RU.get(name) or help_text
    return help_text


