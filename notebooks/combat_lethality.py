# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
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
# **What "the fight kills" means.**  Lethality is compared with every duel played to its end as
# the rules reference asks (`docs/rules/`): `after_out = finish` — once one fighter is out, the other
# keeps attacking the helpless one until it reaches the `lethal_at` level or `finish_attacks`
# more attacks were made — and `lethal_at` chooses what counts as killed (`dying`, the level all
# four systems reach, by default; `dead` leaves the systems without a dead level undefined, not
# 0).  The lab plays these duels with `lethality.AFTER_OUT`; the cell below prints which ending
# and which level these numbers were computed under (`stop` means finishing is not modelled by
# every system yet, and only the deciding blow can kill).

# %%
from IPython.display import Markdown

from analysis import lethality, plots
from analysis.report import findings
from analysis.setup import Setup

setup = Setup.build()
tables = lethality.compare(setup)
gap, leth = tables["skill_gap"], tables["lethality"]
print(f"after_out = {lethality.AFTER_OUT}; lethal_at = {sorted(set(leth['lethal_at']))}")
gap[["system", "gap", "hit_edge", "p_a_wins", "mean_rounds"]].round(3)

# %%
assert (leth["after_out"] == lethality.AFTER_OUT).all()
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
# damaging hits, or k attacks), B never striking back.  Then the one number of lethality:
# P(the fight ends with someone at the killed level), against the skill gap.

# %%
plots.damage(tables["hits_to_out"])

# %%
plots.lethality(leth)

# %%
said = findings.lethality(tables, "en", finish_attacks=setup.ruleset("tristat").finish_attacks)
Markdown("\n".join(f"* {f.text}" for f in said))

# %%
facts = {f.key: f.facts for f in said}
assert facts["how"] == {"after_out": lethality.AFTER_OUT, "lethal_at": "dying"}
killed = leth[leth["gap"] == 0].set_index("system")["p_killed"].dropna()
assert facts["lethal"]["most"] == killed.idxmax() and facts["lethal"]["least"] == killed.idxmin()
assert ((leth["p_killed"].dropna() >= -1e-12) & (leth["p_killed"].dropna() <= 1 + 1e-12)).all()
assert facts["hits"]["medians"] == findings.median_to_out(tables["hits_to_out"], "hits")
hits = tables["hits_to_out"]
for (system, measure), part in hits.groupby(["system", "measure"]):
    assert part["p_out"].is_monotonic_increasing, (system, measure)
