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
# ТУН (3d6) and К.У.Р.С. (3dK, dK = −2, −1, 0, 0, +1, +2), under the book's rules (the project's
# rules reference: `docs/rules/`, or `dicelab rules SYSTEM`).  Each system's main value is the
# number a designer sets: Tri-Stat's target, 2K's action rating, ТУН's limit (Предел),
# К.У.Р.С.'s skill.  Everything below comes from `analysis.tools.compare`, `analysis.present.plots` and the
# report's findings — the same code as `make report`, so the readings are generated from the
# numbers and the `assert` cells check them.  Change `setup` to read your own rules.

# %%
from IPython.display import Markdown

from analysis import Setup, compare, plots
from analysis.front.report import findings

setup = Setup.build()
curves = compare.success_curves(setup)
dice = compare.dice_families(setup)
curves.groupby("system")["fifty_point"].first()

# %% [markdown]
# ## Aligned at the 50% point, and in each system's own terms

# %%
plots.success_curves(curves)

# %%
plots.success_absolute(curves)

# %%
plots.dice_families(dice)

# %% [markdown]
# **Reading** (generated from the tables above):

# %%
said = {f.key: f for f in findings.checks({"curves": curves, "dice": dice}, "en")}
Markdown("\n".join(f"* {f.text}" for f in said.values()))

# %%
tail = findings.tail_at(curves)
assert said["tail"].facts["most"] == max(tail, key=tail.get)
top = curves.groupby("system")["p_success"].max()
assert set(said["top"].facts["capped"]) == {s for s, p in top.items() if p < 1 - 1e-9}
assert abs(top["tristat"] - 35 / 36) < 1e-12  # a natural 12 always fails on 2d6
steps = findings.point_at_middle(dice, "tristat")
assert abs(steps["2d4"] - 1 / 4) < 1e-12 and abs(steps["2d20"] - 1 / 20) < 1e-12

# %% [markdown]
# ## The worth of +1 and how swingy a check is
#
# The worth of a point is in percentage points of P(success); a check's swing is the points of each
# system's own value that take it from a long shot (10%) to a near-certainty (90%).

# %%
wt = compare.worth_table(setup)
plots.worth(wt)

# %%
swing = compare.swing_table(curves)
plots.swing(swing)

# %%
plots.outcome_distributions(compare.outcome_at_fifty(setup))

# %%
said = {f.key: f for f in findings.worth({"worth": wt, "swing": swing}, "en")}
Markdown("\n".join(f"* {f.text}" for f in said.values()))

# %%
middle = wt[wt["modifier"].abs() < 1].groupby("system")["delta_p"].max()
assert said["point"].facts["most"] == middle.idxmax() and said["point"].facts["least"] == middle.idxmin()
assert said["swing"].facts["widest"] == swing.set_index("system")["points"].idxmax()
assert (swing["value_low"] < swing["value_high"]).all()

# %% [markdown]
# ## Criticals and fumbles: a table of odds
#
# A dash means the system has no such result; 0 means it has one that cannot happen at this check.

# %%
crits = compare.crits_and_fumbles(setup)
said = findings.special({"crits": crits}, "en")
Markdown("\n".join(f"* {f.text}" for f in said))

# %%
from analysis.present.i18n import odds

crits.set_index(["system", "dice"])[list(compare.SPECIAL)].map(lambda p: odds("en", p))

# %%
row = crits.query("system == 'tristat' and dice == '2d6'").iloc[0]
assert abs(row["p_critical"] - 1 / 36) < 1e-12 and abs(row["p_fumble"] - 1 / 36) < 1e-12
assert crits.query("system == 'kurs'")["p_critical"].isna().all()
