"""Tri-Stat dX (seed ``000_b535f6ff666a0665.txt``): rules and exact math.

Roll-under 2dX: success iff ``2dX <= target``; natural 2 always succeeds (a
critical), natural 2X always fails.  Margin = ``target - roll``.  See
RULES.md section 1.

>>> r = SYSTEM.check(Rules(), CheckArgs(target=7))
>>> round(r.p_success, 6), r.p_critical == 1 / 36
(0.583333, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator, Mapping

import numpy as np

from .. import markov
from ..combat import Branch, DuelRules, DuelResult, ExchangeResult, Resolution, branch_kernel, describe_fighter, summarize
from ..dist import Dist
from ..params import Bool, Choice, DicelabError, FighterBase, Int, ParamError, Validated, param
from ..results import CheckResult, OpposedResult, Outcomes
from ..system import System

DICE = (4, 6, 8, 10, 12, 20)
HEROISM = {4: "subhuman", 6: "human", 8: "post-human", 10: "superhuman", 12: "inhuman", 20: "godlike"}


@dataclass(frozen=True)
class Rules(DuelRules):
    """The Tri-Stat ruleset: the campaign die and every variant of RULES.md."""

    where = "tristat ruleset"
    die: int = param(6, Choice(DICE), "X of 2dX, fixed per campaign (d4 subhuman ... d20 godlike)")
    contest_tie: str = param("draw", Choice(("draw", "reroll")), "equal contest results: a draw, or roll again")
    cv_rounding: str = param("floor", Choice(("floor", "nearest")), "rounding of (body+mind+soul)/3")
    initiative_once: bool = param(False, Bool(), "initiative rolled once per fight instead of every round")
    acv_in_max: bool = param(False, Bool(), "the ACV bonus sits inside max damage (scaled by the table)")
    damage_rounding: str = param("floor", Choice(("floor", "nearest")), "rounding of the damage percentage")
    shock_rule: bool = param(False, Bool(), "lab stand-in: a hit above health/5 forces a Body check or out")


@dataclass(frozen=True)
class CheckArgs(Validated):
    """A check: the target number (stat or stats' mean + skill + modifiers)."""

    where = "tristat check"
    target: int = param(7, Int(), "stat + skill + modifier; success iff 2dX <= target")


@lru_cache(maxsize=None)
def roll(die: int) -> Dist:
    """The 2dX roll.

    >>> roll(4).to_dict()[5]
    0.25
    """
    return 2 @ Dist.die(range(1, die + 1))


def succeeds(rolls: np.ndarray, target: int, die: int) -> np.ndarray:
    """Success mask over 2dX values: natural 2 always, natural 2X never."""
    return (rolls == 2) | ((rolls <= target) & (rolls != 2 * die))


def check(rules: Rules, args: CheckArgs) -> CheckResult:
    """P(success), the margin distribution, P(natural 2) and P(natural 2X)."""
    r = roll(rules.die)
    return CheckResult(
        system="tristat",
        variants=rules.to_dict(),
        params=args.to_dict(),
        p_success=r.prob(lambda v: succeeds(v, args.target, rules.die)),
        outcome="margin",
        distribution=args.target - r,
        p_critical=float(r.pmf(2)),
        p_fumble=float(r.pmf(2 * rules.die)),
    )


def outcomes(rules: Rules, args: CheckArgs) -> Outcomes:
    """Contest outcomes: a success beats a failure, then the larger margin wins."""
    r = roll(rules.die)
    v = r.support
    ok = succeeds(v, args.target, rules.die)
    margin = args.target - v
    return Outcomes(p=r.p, key=ok.astype(np.int64) * 10_000 + margin, score=margin)


def opposed(rules: Rules, a: CheckArgs, b: CheckArgs) -> OpposedResult:
    """A contest: both roll; the larger margin of success (smaller of failure) wins.

    >>> res = opposed(Rules(), CheckArgs(target=7), CheckArgs(target=7))
    >>> abs(res.p_a_wins - res.p_b_wins) < 1e-15
    True
    """
    win, tie, lose, margin = outcomes(rules, a).against(outcomes(rules, b))
    if rules.contest_tie == "reroll":
        win, lose, tie = win / (win + lose), lose / (win + lose), 0.0
        rule = "equal results are rolled again"
    else:
        rule = "equal results are a draw"
    return OpposedResult("tristat", rules.to_dict(), a.to_dict(), b.to_dict(), win, lose, tie, margin, rule)


def table_cases(rules: Rules, args: CheckArgs) -> Iterator[tuple[str, Rules, CheckArgs]]:
    """Every die, every target from 2 to 2X."""
    for die in DICE:
        r = rules.replace(die=die)
        for target in range(2, 2 * die + 1):
            yield f"2d{die}", r, args.replace(target=target)


# ------------------------------------------------------------------ combat
DAMAGE_TABLE = {  # upper bounds of the 2dX results giving 100%, 75%, 50% of max damage; above: 25%
    4: (2, 4, 7), 6: (3, 6, 10), 8: (4, 8, 13), 10: (5, 10, 16), 12: (6, 12, 19), 20: (10, 20, 32),
}
MAX_HEALTH = 300


@dataclass(frozen=True)
class Fighter(FighterBase):
    """A Tri-Stat combatant; ``acv``, ``dcv`` and ``health`` are derived unless given."""

    where = "tristat fighter"
    body: int = param(4, Int(1, 40), "Body (4 is an ordinary adult)")
    mind: int = param(4, Int(1, 40), "Mind")
    soul: int = param(4, Int(1, 40), "Soul")
    acv: int | None = param(None, Int(-20, 60, optional=True), "attack combat value (default (body+mind+soul)/3)")
    dcv: int | None = param(None, Int(-20, 60, optional=True), "defense combat value (default acv - 2)")
    health: int | None = param(None, Int(1, MAX_HEALTH, optional=True), "health points (default (body+soul)*5)")
    attack_bonus: int = param(0, Int(0, 20), "attack combat skill")
    defense_bonus: int = param(0, Int(0, 20), "defense combat skill")
    weapon_damage: int = param(0, Int(0, 200), "max damage of the weapon (+ Massive Damage, Superstrength)")
    armor: int = param(0, Int(0, 200), "Armor attribute: flat reduction of every hit")
    block: bool = param(False, Bool(), "blocks with an object (+2 to defense)")

    def check(self) -> None:
        if self.health is None and (self.body + self.soul) * 5 > MAX_HEALTH:
            raise ParamError("health", (self.body + self.soul) * 5, f"at most {MAX_HEALTH} (derived as (body+soul)*5)")

    def stats(self, rules: Rules) -> tuple[int, int, int]:
        """(acv, dcv, health) under the ruleset's rounding."""
        total = self.body + self.mind + self.soul
        acv = self.acv if self.acv is not None else (total // 3 if rules.cv_rounding == "floor" else (2 * total + 3) // 6)
        dcv = self.dcv if self.dcv is not None else acv - 2
        health = self.health if self.health is not None else (self.body + self.soul) * 5
        return acv, dcv, health

    def derived(self, rules: Rules) -> dict[str, int]:
        acv, dcv, health = self.stats(rules)
        return {"acv": acv, "dcv": dcv, "health": health, "shock": health // 5}


def check_roll_succeeds(roll_value: int, target: int, die: int) -> bool:
    """One 2dX value against a target, naturals included."""
    return bool(succeeds(np.array([roll_value]), target, die)[0])


def damage_percent(die: int, roll_value: int) -> int:
    """The damage table: a 2dX result -> percentage of max damage (100, 75, 50, 25).

    >>> [damage_percent(6, r) for r in (2, 3, 4, 7, 11)]
    [100, 100, 75, 50, 25]
    """
    for pct, bound in zip((100, 75, 50), DAMAGE_TABLE[die]):
        if roll_value <= bound:
            return pct
    return 25


def _scaled(max_damage: int, pct: int, rounding: str) -> int:
    return max_damage * pct // 100 if rounding == "floor" else (max_damage * pct * 2 + 100) // 200


def hit_damage(rules: Rules, att: Fighter, dfn: Fighter, damage_roll: int | None) -> int:
    """Damage of a hit after armor; ``damage_roll=None`` for a critical (200% of max)."""
    acv = att.stats(rules)[0]
    max_damage = att.weapon_damage + (acv if rules.acv_in_max else 0)
    pct = 200 if damage_roll is None else damage_percent(rules.die, damage_roll)
    raw = _scaled(max_damage, pct, rules.damage_rounding) + (0 if rules.acv_in_max else acv)
    return max(0, raw - dfn.armor)


@lru_cache(maxsize=256)
def track(rules: Rules, f: Fighter) -> markov.Track:
    """Damage taken 0..health (up), then ``out`` (health < 0) and ``dead`` (health <= -max)."""
    health = f.stats(rules)[2]
    labels = tuple(range(health + 1)) + ("out", "dying")
    status = (markov.UP,) * (health + 1) + (markov.OUT, markov.DYING)
    return markov.Track(labels=labels, status=status)


def _after(rules: Rules, dfn: Fighter, taken: int, damage: int, shocked: bool) -> Any:
    health = dfn.stats(rules)[2]
    total = taken + damage
    if total >= 2 * health:
        return "dying"
    if total > health or shocked:
        return "out"
    return total


def condition_label(label: Any) -> str:
    return label if isinstance(label, str) else f"damage taken {label}"


@lru_cache(maxsize=256)
def _exchange_table(rules: Rules, att: Fighter, dfn: Fighter) -> tuple[float, float, float, tuple[tuple[float, int], ...], int]:
    """(P(miss), P(defended), P(critical), ((p, damage) of normal hits), critical damage)."""
    r = roll(rules.die)
    acv = att.stats(rules)[0]
    dcv = dfn.stats(rules)[1]
    v = r.support
    crit = float(r.pmf(2))
    attack_ok = r.prob(succeeds(v, acv + att.attack_bonus, rules.die) & (v != 2))
    defense_ok = r.prob(succeeds(v, dcv + dfn.defense_bonus + 2 * dfn.block, rules.die))
    hits: dict[int, float] = {}
    for value, p in zip(v, r.p):
        d = hit_damage(rules, att, dfn, int(value))
        hits[d] = hits.get(d, 0.0) + attack_ok * (1 - defense_ok) * float(p)
    miss = 1.0 - crit - attack_ok
    return miss, attack_ok * defense_ok, crit, tuple(sorted(hits.items(), key=lambda kv: kv[0])), hit_damage(rules, att, dfn, None)


def branches(rules: Rules, att: Fighter, dfn: Fighter, taken: int) -> list[Branch]:
    """Every way one attack on a defender who has taken ``taken`` damage can go."""
    miss, defended, crit, hits, crit_damage = _exchange_table(rules, att, dfn)
    t = track(rules, dfn)
    shock = dfn.stats(rules)[2] // 5
    body_fails = 1.0 - roll(rules.die).prob(lambda v: succeeds(v, dfn.body, rules.die))
    out = [Branch(miss, "miss", 0, t.index[taken]), Branch(defended, "defended", 0, t.index[taken])]
    for p, damage, critical in [(p, d, False) for d, p in hits] + [(crit, crit_damage, True)]:
        kind = "hit"
        if rules.shock_rule and damage > shock:
            out.append(Branch(p * body_fails, kind, damage, t.index[_after(rules, dfn, taken, damage, True)], critical))
            p *= 1 - body_fails
        out.append(Branch(p, kind, damage, t.index[_after(rules, dfn, taken, damage, False)], critical))
    return [b for b in out if b.p > 0]


def exchange(rules: Rules, att: Fighter, dfn: Fighter) -> ExchangeResult:
    """One attack of ``att`` on an unhurt ``dfn``, exactly."""
    notes = ["shock_rule is the lab's stand-in for the seed's optional Shock rule"] if rules.shock_rule else []
    return summarize("tristat", rules, att, dfn, branches(rules, att, dfn, 0), track(rules, dfn), condition_label, notes)


def initiative(rules: Rules, a: Fighter, b: Fighter) -> tuple[float, float, float]:
    """(P(A acts first), P(simultaneous), P(B first)) from 2dX + acv each."""
    r = roll(rules.die)
    ia, ib = r + a.stats(rules)[0], r + b.stats(rules)[0]
    win, tie, lose, _ = Outcomes(ia.p, ia.support, ia.support).against(Outcomes(ib.p, ib.support, ib.support))
    return win, tie, lose


def duel(rules: Rules, a: Fighter, b: Fighter) -> DuelResult:
    """Initiative each round (2dX + acv; equal: simultaneous), one attack each, until someone is out."""
    _stop_only(rules)
    ta, tb = track(rules, a), track(rules, b)
    on_b = {0: branch_kernel(tb, lambda i: branches(rules, a, b, tb.labels[i]))}
    on_a = {0: branch_kernel(ta, lambda i: branches(rules, b, a, ta.labels[i]))}
    a_hits, b_hits = markov.attack(ta, tb, on_b, "a"), markov.attack(ta, tb, on_a, "b")
    orders = [(a_hits @ b_hits), markov.simultaneous(ta, tb, on_a, on_b), (b_hits @ a_hits)]
    weights = initiative(rules, a, b)
    if rules.initiative_once:
        solution = markov.mix_solutions([(w, markov.solve(m, ta, tb, (0, 0))) for w, m in zip(weights, orders)], ta, tb)
        order = "initiative rolled once per fight (2dX + acv); equal: simultaneous"
    else:
        solution = markov.solve(markov.mixture(list(zip(weights, orders))), ta, tb, (0, 0))
        order = "initiative every round (2dX + acv); equal initiative: simultaneous attacks"
    return DuelResult("tristat", rules.to_dict(), describe_fighter(a, rules), describe_fighter(b, rules), order, solution)


def _stop_only(rules: Any) -> None:
    if rules.after_out != "stop":
        raise DicelabError(f"after_out = {rules.after_out!r} is not modelled yet for this system; allowed: stop")


def resolve(rules: Rules, att: Fighter, dfn: Fighter, rolls: Mapping[str, int]) -> Resolution:
    """One attack with the dice given: ``attack``, ``defense``, ``damage`` and ``body`` (shock) 2dX totals."""
    acv, _, _ = att.stats(rules)
    _, dcv, health = dfn.stats(rules)
    lo, hi = 2, 2 * rules.die
    for name, value in rolls.items():
        if not lo <= value <= hi:
            raise ParamError(f"rolls.{name}", value, f"a 2d{rules.die} total in {lo}..{hi}")
    steps, fields = [], {}
    a_roll = _need(rolls, "attack")
    target = acv + att.attack_bonus
    critical = a_roll == 2
    ok = check_roll_succeeds(a_roll, target, rules.die)
    steps.append(f"attack: 2d{rules.die} = {a_roll} against acv {acv} + skill {att.attack_bonus} = {target}: "
                 + ("natural 2, critical hit (defense skipped)" if critical else "hit" if ok else "miss"))
    hit, damage = ok, 0
    if ok and not critical:
        d_roll = _need(rolls, "defense")
        d_target = dcv + dfn.defense_bonus + 2 * dfn.block
        blocked = check_roll_succeeds(d_roll, d_target, rules.die)
        steps.append(f"defense: 2d{rules.die} = {d_roll} against dcv {dcv} + skill {dfn.defense_bonus}"
                     + (" + block 2" if dfn.block else "") + f" = {d_target}: " + ("defended" if blocked else "failed"))
        hit = not blocked
    if hit:
        dmg_roll = None if critical else _need(rolls, "damage")
        max_damage = att.weapon_damage + (acv if rules.acv_in_max else 0)
        pct = 200 if critical else damage_percent(rules.die, dmg_roll)
        raw = _scaled(max_damage, pct, rules.damage_rounding) + (0 if rules.acv_in_max else acv)
        damage = max(0, raw - dfn.armor)
        source = "critical: 200%" if critical else f"damage roll 2d{rules.die} = {dmg_roll}: {pct}%"
        steps.append(f"{source} of max {max_damage} ({rules.damage_rounding})"
                     + ("" if rules.acv_in_max else f" + acv {acv}") + f" = {raw}; armor {dfn.armor}: {damage} damage")
        fields["percent"] = pct
    shocked = False
    if hit and rules.shock_rule and damage > health // 5:
        b_roll = _need(rolls, "body")
        shocked = not check_roll_succeeds(b_roll, dfn.body, rules.die)
        steps.append(f"shock (lab stand-in): {damage} > shock {health // 5}; Body check 2d{rules.die} = {b_roll} "
                     f"against {dfn.body}: " + ("knocked out" if shocked else "stays up"))
    after = _after(rules, dfn, 0, damage, shocked)
    steps.append(f"health {health} -> {health - damage}" + (f" ({after})" if isinstance(after, str) else ""))
    fields.update({"critical": critical, "health_after": health - damage, "condition": condition_label(after)})
    return Resolution("tristat", rules.to_dict(), describe_fighter(att, rules), describe_fighter(dfn, rules),
                      dict(rolls), steps, hit, damage, damage, fields)


def _need(rolls: Mapping[str, int], name: str) -> int:
    if name not in rolls:
        raise ParamError("rolls", ",".join(f"{k}={v}" for k, v in rolls.items()) or "(none)",
                         f"a value for '{name}' (this exchange needs it)")
    return rolls[name]


SYSTEM = System(
    id="tristat",
    title="Tri-Stat dX",
    title_ru="Tri-Stat dX",
    seed="000_b535f6ff666a0665.txt",
    dice="2dX roll-under, X in " + ", ".join(f"d{d}" for d in DICE),
    Rules=Rules,
    CheckArgs=CheckArgs,
    check=check,
    opposed=opposed,
    table_cases=table_cases,
    value="target",
    rule_flags=("die",),
    Fighter=Fighter,
    exchange=exchange,
    resolve=resolve,
    duel=duel,
    roll_names=("attack", "defense", "damage", "body"),
    combat_skills=("attack_bonus", "defense_bonus"),
    levels={"out": "Health < 0: «теряет сознание»", "dying": "Health <= -max Health: «при смерти»", "dead": None},
    round_seconds=5,
)
