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
# # How swingy is a check? Success curves of the four systems
#
# Exact P(success) for Tri-Stat dX (2d6 by default), the 2K system with the rule of 1 and 6,
# ТУН (3d6) and К.У.Р.С. (3dK, dK = −2, −1, 0, 0, +1, +2), under the default rules of RULES.md.
# Each system's main value is the number a designer sets: Tri-Stat's target, 2K's action
# rating, ТУН's limit (Предел), К.У.Р.С.'s skill.  Everything below comes from
# `analysis.compare` and `analysis.plots`, the same code as `make report`.

# %%
import pandas as pd

from analysis import compare, plots

curves = compare.success_curves()
curves.groupby("system")["fifty_point"].first()

# %% [markdown]
# ## Aligned at the 50% point, and in each system's own terms

# %%
plots.success_curves(curves);

# %%
plots.success_absolute(curves);

# %% [markdown]
# **Reading.**  Aligned at the point where each check is a coin flip, Tri-Stat (2d6) and
# К.У.Р.С. (3dK) are the steepest: two points either side of the middle take a check from about
# 15% to about 85%.  ТУН's 3d6 is a little flatter.  The 2K system is the odd one out: its curve
# is flattest in the middle and has a long lower tail — the rule of 1 and 6 leaves about a 10%
# chance even eight points below the middle, because sixes explode without limit.  At the top,
# Tri-Stat stops at 1 − 1/36 (a natural 12 always fails) while the others reach certainty.

# %%
wt = compare.worth_table()
centre = wt.loc[wt["modifier"].abs() < 1].groupby("system")["delta_p"].max()
assert centre["kurs"] > centre["tun"] > centre["onesix"] and centre["tristat"] > centre["tun"]
low_tail = curves[(curves["system"] == "onesix") & (curves["modifier"] < -7)]["p_success"]
assert (low_tail > 0.05).all()
centre.round(3)

# %% [markdown]
# ## The worth of +1 across the range

# %%
plots.worth(wt);

# %% [markdown]
# **Reading.**  A point is worth most at the middle of the range and little at the ends in every
# system, but the peak differs: about +17 percentage points in К.У.Р.С. and Tri-Stat, +12.5 in
# ТУН and only about +11 in 2K, whose value of a point also wobbles (every third point of RT
# adds a success level, and the exploding tail smears the curve).  The right panel is the
# spread of the outcome measure: ТУН's effectiveness has the widest spread (3d6, std ≈ 3), then
# Tri-Stat's margin and К.У.Р.С.'s; 2K's success level starts narrow and widens as the rating
# climbs, because only successes earn levels.

# %% [markdown]
# ## Outcome distributions, criticals and fumbles

# %%
plots.outcome_distributions(compare.outcome_at_fifty());

# %%
crits = compare.crits_and_fumbles()
plots.crits_and_fumbles(crits);
crits

# %% [markdown]
# **Reading.**  Tri-Stat's natural 2 and natural 2X each come up 1/X² of the time: 6.25% on
# d4, 2.8% on d6, a quarter of a percent on d20 — the bigger the die, the rarer the miracle and
# the disaster.  ТУН's optional criticals (3 and 18 on 3d6) are rarer still, 1/216 each.  The 2K
# system's equipment fault (two ones) is a flat 1/36 whatever the rating, while its "serious
# failure" (RT < 6) never happens to a character at the middle of the range.  К.У.Р.С. has no
# criticals, but "success with a complication" is very common: about 18% of checks at the
# middle.

# %%
assert abs(crits.query("system == 'tristat' and mode == '2d6'")["p_critical"].iloc[0] - 1 / 36) < 1e-12
assert 0.15 < crits.query("system == 'kurs'")["p_complication"].iloc[0] < 0.2

# %% [markdown]
# ## How the die size moves Tri-Stat and the dice mode moves ТУН

# %%
dice = compare.dice_families()
plots.dice_families(dice);

# %% [markdown]
# **Reading.**  Tri-Stat's die sets the scale of the game: on 2d4 one point of target moves a
# middle check by 25 points, on 2d20 by 5 — the same stat block is far less decisive in a
# "godlike" d20 campaign.  ТУН's luck dice flatten its curve: 1d20 is a straight 5% per point
# and 1d6×3 moves in steps of three, so a luck roll barely rewards skill.
