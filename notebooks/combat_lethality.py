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
# Exact duels (absorbing Markov chains over both fighters' condition tracks, the exchange order
# of RULES.md's simplified model), under the default rules.
#
# **How fighters are matched across systems.**  Each system has a `trained_armed` archetype
# built from its own seed's scale (Tri-Stat's example character with a weapon of max damage 10,
# 2K's trained fighter with the seed's combat knife, ТУН's trained fighter with the seed's
# E×2+1 knife, К.У.Р.С.'s trained fighter with a short sword).  A duel pits it against itself,
# so a fair fight is 50/50 in every system.  A *skill gap* of k raises A's combat skills by k
# points of that system.  A point does not buy the same in every system, so we also put the
# systems on a common axis: the **hit edge**, A's chance to hit B in one exchange minus B's
# chance to hit A.  We chose archetypes over "equal P(success) on a standard check" because a
# fight depends on damage and condition tracks as much as on the to-hit roll; the hit edge
# then removes the difference in what a point is worth.

# %%
from analysis import lethality, plots

tables = lethality.compare()
gap = tables["skill_gap"]
gap[["system", "gap", "hit_edge", "p_a_wins", "p_death", "mean_rounds"]].round(3)

# %% [markdown]
# ## P(win) against the skill gap

# %%
plots.skill_gap(gap);

# %% [markdown]
# **Reading.**  Per point of combat skill, К.У.Р.С. is the most decisive (one point takes a fair
# fight to about 87/13) and the 2K system the least (one point: about 61/39; four points still
# leave the weaker side about one chance in eight).  On the common hit-edge axis Tri-Stat, ТУН
# and К.У.Р.С. nearly coincide — what differs between them is how much edge a point buys — while
# 2K stays below them: its exploding damage keeps upsets alive even when the to-hit odds are
# lopsided.

# %%
one_point = gap[gap["gap"] == 1].set_index("system")["p_a_wins"]
assert one_point["kurs"] > one_point["tristat"] > one_point["onesix"]
assert one_point["tun"] > one_point["onesix"]

# %% [markdown]
# ## How long a fight lasts

# %%
plots.rounds(tables["rounds"]);

# %% [markdown]
# **Reading.**  ТУН fights are over in two or three rounds: each turn is two attacks and a hit
# does E×2+1 trauma.  2K and К.У.Р.С. take six to seven rounds, Tri-Stat nearly ten (health
# (Body+Soul)×5 absorbs many hits of 50–75% of a weapon's damage).  A skill gap shortens every
# system's fights.

# %%
means = gap[gap["gap"] == 0].set_index("system")["mean_rounds"]
assert means["tun"] < means["kurs"] < means["tristat"] and means["onesix"] < means["tristat"]
means.round(2)

# %% [markdown]
# ## Death against incapacitation, and damage per exchange

# %%
plots.lethality(gap);

# %%
plots.damage(tables["damage"]);

# %% [markdown]
# **Reading.**  The systems differ most in how often a fight kills.  Tri-Stat's matched fighters
# practically never die in a duel: death needs health driven to −max, and the fight stops as
# soon as someone drops below 0.  ТУН kills rarely (under 1% in a fair fight, about 9% at a
# four-point gap: trauma must pass twice the volume in one blow).  In 2K a knife fight always ends
# with the loser dying: with a wound weapon the only way out is past the 6th Wound, and Wounds 7-9
# are the body's reserve (RULES.md section 5 counts them as dying).
# К.У.Р.С. is the deadliest and the most sensitive to skill: a fair fight kills about one time in
# six, a four-point gap more than half the time, because a big margin of success turns straight
# into damage and overflows the box track to "dying".

# %%
death = gap.pivot(index="gap", columns="system", values="p_death")
assert death["tristat"].max() < 1e-6
assert death["kurs"].iloc[-1] > 0.5 > death["kurs"].iloc[0]
assert death["tun"].iloc[0] < 0.02 and death["onesix"].min() > 0.99
death.round(3)
