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
# # Which ambiguities in the rule texts matter?
#
# RULES.md fixes a default for every gap or contradiction in the four seeds and names the other
# reading as a variant.  Here every variant is set against the default ruleset: its largest
# change of P(success) over the system's check table, and its change of P(A wins), P(death) and
# mean rounds in a matched duel (each system's `trained_armed` archetype against itself).  The
# effect size is in "distance units": 10 percentage points of a probability, or a factor of 1.5
# in fight length.

# %%
import pandas as pd

from analysis import compare, plots

effects = compare.variant_effects()
effects[["system", "variant", "effect", "check_max_dp", "d_p_a_wins", "d_p_death", "d_mean_rounds"]].round(3)

# %%
plots.variant_effects(effects);

# %% [markdown]
# **Reading — what matters.**
#
# * **Tri-Stat:** the campaign die dwarfs everything (a d20 duel of the same fighters lasts many
#   times longer).  The lab's stand-in for the optional Shock rule shortens fights sharply.
#   `acv_in_max` and the damage rounding barely move a duel.  `initiative_once` changes nothing at
#   all in a duel — provably: both fighters attack every round whatever the order, and only the
#   last round's order matters, which is equally likely either way.
# * **2K:** with knives every fight already ends with the loser dying (Wounds 7-9), so measuring
#   the damage excess over the defender's RT instead of 15 moves deaths by only about a point;
#   cutting the explosion (`explode_depth=0`) changes checks by up to 17 points.  Counting an
#   extra die's 1 barely matters.
# * **ТУН:** "less than the limit" against "at most the limit" (the text against its own table)
#   moves every check by up to a sixth — a whole 3d6 step — but barely moves a duel between equal
#   fighters, since both gain.  Optional criticals add a few points of deaths.  The last-word
#   rule turns about 8% of fair fights into mutual knock-outs, taking four points of P(win) from
#   each side.
# * **К.У.Р.С.:** a luck token moves a single check by up to 48 points (anything failing by three
#   or less becomes a success) but hardly changes a duel between equals.  The clamp contradiction
#   in the gladiator example matters: without the clamp deaths rise by about 23 points and fights
#   are about 2.7 rounds shorter; summing local penalties (`wound_penalty=local`) is as deadly.
#
# **What does not matter here:** Tri-Stat `cv_rounding` (these fighters' (Body+Mind+Soul)/3 = 5⅓
# rounds to 5 either way) and `contest_tie` (a contest rule, not a combat one), 2K `armor_wear`
# (the matched fighters wear no armor), ТУН `turn_order` (equal Body: a roll-off decides either
# way), К.У.Р.С. `type_bonus` and `graze` (without armor every hit of these fighters gets
# through, and their graze does its 1 point under both readings).

# %%
def effect(system: str, variant: str) -> pd.Series:
    return effects[(effects["system"] == system) & (effects["variant"] == variant)].iloc[0]


assert effect("tristat", "initiative_once=true")["effect"] < 1e-9
assert abs(effect("onesix", "excess_over=defense")["d_p_death"]) < 0.03
assert effect("tun", "success_rule=le")["check_max_dp"] > 0.16
assert abs(effect("tun", "success_rule=le")["d_p_a_wins"]) < 0.01
assert effect("kurs", "luck_tokens=1")["check_max_dp"] > 0.4
assert effect("kurs", "defense_clamp=false")["d_p_death"] > 0.15
assert 0.03 < effect("tun", "last_word=false")["d_p_a_wins"] < 0.06
