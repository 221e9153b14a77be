# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # How deadly is a fight? Combat lethality of the four systems
#
# Exact duels (absorbing Markov chains over both fighters' condition tracks, each system's own
# timing), under the book's rules (`docs/rules/`, or `dicelab rules SYSTEM`).
#
# **How fighters are matched across systems.**  Each system has a `trained_armed` archetype
# built from its own seed's scale; a duel pits it against itself, so a fair fight is even in
# every system.  A *skill gap* of k raises A's combat skills by k points of that system.  A point
# does not buy the same in every system, so the systems also share a common axis: the **hit
# edge**, A's chance to hit B in one exchange minus B's chance to hit A.
#
# **How deadly, measured how.**  A duel stops at the first fighter out (`after_out = stop`), or
# the winner keeps attacking the helpless loser (`after_out = finish`) until it reaches the
# `lethal_at` level or `finish_attacks` more attacks were made.  Under `stop` only the deciding
# blow can kill, so a system whose blows rarely leave the loser dying shows almost no deaths; with
# ten finishing attacks every system nears its ceiling.  So lethality is a curve: P(at least one
# fighter killed) against the finishing attacks allowed, 0 (stop) to `finish_attacks`
# (`lethality.finishing`).  `lethal_at` chooses what counts as killed (`dying`, the level all four
# systems reach, by default; `dead` leaves the systems without a dead level undefined, not 0).
# The skill-gap duels below are played with `lethality.AFTER_OUT` (who wins and how long it takes
# do not depend on it).

# %%
from IPython.display import Markdown

from analysis import Setup, lethality, plots
from analysis.front.report import findings

setup = Setup.build()
tables = lethality.compare(setup)
gap, leth = tables["skill_gap"], tables["lethality"]
print(f"finishing attacks 0..{leth['finish_attacks'].max()}; lethal_at = {sorted(set(leth['lethal_at']))}")
gap[["system", "gap", "hit_edge", "p_a_wins", "mean_rounds"]].round(3)

# %%
assert (leth["after_out"] == ["stop" if k == 0 else "finish" for k in leth["finish_attacks"]]).all()
assert (leth["lethal_at"] == [setup.ruleset(s).lethal_at for s in leth["system"]]).all()

# %% [markdown]
# ## Who wins, and how long it takes

# %%
plots.skill_gap(gap)

# %%
plots.rounds(tables["rounds"])

# %%
said = findings.combat(tables, "en")
Markdown("\n".join(f"* {f.text}" for f in said))

# %%
for system, part in gap.groupby("system"):
    assert part.sort_values("gap")["p_a_wins"].is_monotonic_increasing, system
facts = {f.key: f.facts for f in said}
zero = gap[gap["gap"] == 0].set_index("system")
assert facts["length"]["shortest"] == zero["mean_rounds"].idxmin()
assert facts["length"]["longest"] == zero["mean_rounds"].idxmax()

# %% [markdown]
# ## Hits to go down, and how often the fight kills
#
# The defender's health or condition track counted in hits: P(B is out after at most k of A's
# damaging hits, or k attacks), B never striking back.  Then lethality: P(at least one fighter
# killed) against the finishing attacks allowed, and how often the deciding blow alone kills.

# %%
plots.damage(tables["hits_to_out"])

# %%
plots.lethality(leth)

# %%
said = findings.lethality(tables, "en")
Markdown("\n".join(f"* {f.text}" for f in said))

# %%
facts = {f.key: f.facts for f in said}
assert facts["how"] == {"lethal_at": "dying", "finish_attacks": leth["finish_attacks"].max()}
stop = leth[leth["finish_attacks"] == 0].set_index("system")["p_killed"].dropna()
assert facts["order"]["stop"][0] == stop.idxmax() and facts["order"]["stop"][-1] == stop.idxmin()
assert ((leth["p_killed"].dropna() >= -1e-12) & (leth["p_killed"].dropna() <= 1 + 1e-12)).all()
for system, part in leth.groupby("system"):
    assert part["p_killed"].is_monotonic_increasing, system
assert facts["hits"]["medians"] == findings.median_to_out(tables["hits_to_out"], "hits")
hits = tables["hits_to_out"]
for (system, measure), part in hits.groupby(["system", "measure"]):
    assert part["p_out"].is_monotonic_increasing, (system, measure)

# %% [markdown]
# ## 2K: what the clock buys
#
# A 2K fight is timed by its IN economy (`docs/rules/onesix.md`): each 6-second round a fighter
# has IN = Reflexes + 1K, an attack costs 6 IN and a parry 3, leftovers and debts carry, and a hit
# that overwhelms Training (stopping effect) or Personality (pain shock) costs the victim an
# action.  So Reflexes decide how many actions a fighter gets, not only who strikes first, and
# Personality decides how often a wound costs one.  Below, A is the `trained_armed` fighter with
# one stat changed, against the plain one (Reflexes 8, Personality 4), in the exact chain.

# %%
import pandas as pd

from analysis import get_system
from analysis.fights.fighters import load_fighter

onesix = get_system("onesix")
rules = onesix.rules()
plain = load_fighter(onesix, "trained_armed")
rows = []
for stat, values in {"reflexes": range(6, 15, 2), "personality": (0, 4, 10)}.items():
    for value in values:
        sol = onesix.duel(rules, plain.replace(**{stat: value}), plain).solution
        rows.append({"stat": stat, "value": value, "p_a_wins": sol.p_a_wins, "p_b_wins": sol.p_b_wins,
                     "mean_rounds": sol.mean_rounds})
clock = pd.DataFrame(rows)
reflexes = clock[clock["stat"] == "reflexes"].set_index("value")
personality = clock[clock["stat"] == "personality"].set_index("value")
Markdown(
    f"* Reflexes {reflexes.index.min()} against 8: A wins {reflexes['p_a_wins'].iloc[0]:.1%}; "
    f"Reflexes {reflexes.index.max()}: {reflexes['p_a_wins'].iloc[-1]:.1%}. Every 2 points of Reflexes move "
    f"P(A wins) by {reflexes['p_a_wins'].diff().abs().min():.0%} to {reflexes['p_a_wins'].diff().abs().max():.0%}.\n"
    f"* Personality 0 (every wound is a pain shock): A wins {personality.loc[0, 'p_a_wins']:.1%}; "
    f"Personality 10: {personality.loc[10, 'p_a_wins']:.1%}."
)

# %%
clock.round(4)

# %%
assert reflexes["p_a_wins"].is_monotonic_increasing
assert reflexes["p_a_wins"].diff().dropna().min() > 0.03
assert abs(reflexes.loc[8, "p_a_wins"] - reflexes.loc[8, "p_b_wins"]) < 1e-9
assert personality.loc[10, "p_a_wins"] - personality.loc[0, "p_a_wins"] > 0.03

# %% [markdown]
# ## Groups: how much numbers matter
#
# Every system's rules for many combatants (`docs/rules/<system>.md`, "Group fights") decide how a
# crowd fights: Tri-Stat's −4 on every defence after the first in a round, К.У.Р.С.'s −1 per extra
# defence, ТУН's turn order of several characters.  Below: one `trained_armed` against 1 to 5
# `novice_armed` (exact up to one against two, Monte Carlo beyond, each point says which), the fair
# count of each archetype against each weaker one, and Lanchester's exponent k of each system
# (strength ∝ count^k: k = 1 the linear law, k = 2 the square law), fitted to mirror fights of
# `trained_armed` sides.  2K reads its group timing two ways (its duel's IN economy by default, the
# seed's order by initiative «при большом числе участников» as a variant): the last table shows both.
# The same function makes the report's Groups section.

# %%
from analysis.tools import crowds

groups = crowds.tables(setup)
crowd, fair, k, readings = groups["crowd"], groups["fair_counts"], groups["exponents"], groups["group_readings"]
said = findings.groups(groups, "en")
Markdown("\n".join(f"* {f.text}" for f in said))

# %%
plots.crowd(crowd)

# %%
plots.lanchester(k)

# %%
fair

# %%
readings

# %%
facts = {f.key: f.facts for f in said}
for system, part in crowd.groupby("system"):
    p, se = part["p_a_wins"].to_numpy(), part["se"].fillna(0).to_numpy()
    assert (p[1:] <= p[:-1] + 4 * (se[1:] + se[:-1]) + 1e-12).all(), system
assert set(k["system"]) == set(crowds.GROUPED) and "missing" not in facts
assert ((k["k_lo"] <= k["k"]) & (k["k"] <= k["k_hi"])).all() and (k["k"] > 1).all()
hero = fair[(fair["a"] == crowds.HERO) & (fair["b"] == crowds.MOOK)].set_index("system")["fair_count"]
assert facts["crowd"]["fair"] == {s: int(c) for s, c in hero.items()}
assert facts["lanchester"]["most"] == k.loc[k["k"].idxmax(), "system"]
assert set(readings["reading"]) == {"group_timing=economy", "group_timing=order"}
economy = readings.set_index("reading").loc["group_timing=economy"]
assert economy["k"] == k.set_index("system").loc["onesix", "k"]
assert facts["readings"]["readings"]["group_timing=order"]["k"] == readings.set_index("reading").loc[
    "group_timing=order", "k"]
