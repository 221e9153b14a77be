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
# # Which ambiguities in the rule texts matter, and which tactics pay?
#
# The rules reference (`docs/rules/`, `dicelab rules SYSTEM`) fixes a default for every gap or
# contradiction in the four source texts and names the other reading as a variant.  Here every
# variant is set against the default ruleset, signed: its largest change of P(success) over the
# system's check table, and its change of P(A wins), P(at least one killed) and mean rounds in a
# matched duel (each system's `trained_armed` archetype against itself, played as the skill-gap
# duels are: `lethality.AFTER_OUT`, killed = `lethal_at`).  Rows come in a stated order: the
# systems, then each ruleset's fields as declared; every measure has one scale for all systems.

# %%
from IPython.display import Markdown

from analysis import Setup, compare, plots
from analysis.front.report import findings

setup = Setup.build()
effects = compare.variant_effects(setup)
effects[["system", "variant", "check_shift", "d_p_a_wins", "d_p_killed", "d_mean_rounds"]].round(3)

# %%
plots.variant_effects(effects)

# %%
said = findings.rules({"variants": effects}, "en")
Markdown("\n".join(f"* {f.text}" for f in said))


# %%
def effect(system: str, variant: str):
    return effects[(effects["system"] == system) & (effects["variant"] == variant)].iloc[0]


facts = {f.key: f.facts for f in said}
assert facts["largest_check_shift"]["variant"] == effects.loc[effects["check_shift"].abs().idxmax(), "variant"]
# initiative_once changes nothing one-on-one: both attack every round whatever the order
assert abs(effect("tristat", "initiative_once=true")["d_p_a_wins"]) < 1e-9
assert ("tristat", "initiative_once=true") in facts["inert"]["variants"]
# "at most the limit" instead of "less than": the largest shift is one face of 1d6x3, exactly 1/6
assert abs(effect("tun", "success_rule=le")["check_shift"] - 1 / 6) < 1e-12
# a luck token turns a failure by 1..3 into a success: a single check moves by far more than any other reading
assert effect("kurs", "luck_tokens=1")["check_shift"] == effects["check_shift"].max()

# %% [markdown]
# ## Which tactical options are worth taking in a matched fight?
#
# Every fighter's tactical option (a *policy*: a stance, parrying or not, an aimed shot, a
# fatigue-box dodge...) set against the plain fighter: A takes the option, B stays plain, both
# otherwise `trained_armed`.  A positive ΔP(A wins) means the option pays in this fight; the
# other columns say what it costs — A's own risk of being killed, B's, and the fight's length.
# The table is generic over every system's policy fields, so new options appear here by
# themselves.

# %%
options = compare.policy_effects(setup)
refused = options[options["d_p_a_wins"].isna()]
Markdown("\n".join(f"* refused: `{r.option}` ({r.system}): {r.note}" for r in refused.itertuples()) or "* none refused")

# %%
options[options["d_p_a_wins"].notna()][["system", "option", "p_a_wins", "d_p_a_wins", "d_p_a_killed", "d_p_b_killed",
                                        "d_mean_rounds"]].round(4)

# %%
plots.policy_effects(options)

# %%
said = findings.tactics({"policies": options}, "en")
Markdown("\n".join(f"* {f.text}" for f in said))

# %%
from analysis.systems import all_systems
from analysis.tools.variants import alternatives

expected = sum(len(list(alternatives(s.Fighter.specs("policy"), setup.fighters(s.id)[0]))) for s in all_systems())
assert len(options) == expected
if len(options):
    facts = said[0].facts
    assert facts["good"] == list(options[options["d_p_a_wins"] > 1e-9].sort_values("d_p_a_wins", ascending=False)["option"])
    assert facts["bad"] == list(options[options["d_p_a_wins"] < -1e-9].sort_values("d_p_a_wins")["option"])
    assert options["p_a_wins"].dropna().between(0, 1).all()

# %% [markdown]
# ## Played well: are the book's scripts the best play?
#
# Each system whose duel is solved as a game (`dicelab tactics`) is played twice: both fighters by
# their policies (the book) and both at the equilibrium of the decision game (playing well), over a
# skill gap.  The table below says what each decision is worth, which fixed policies are dominated
# and the simple rule that keeps the equilibrium's gain.  The same solver makes the report's
# "Played well" section and `--play equilibrium`.

# %%
from analysis.tools import played

made = played.tables(setup)
curve, choices = made["played"], made["played_options"]
said = findings.played(made, "en")
Markdown("\n".join(f"* {f.text}" for f in said))

# %%
plots.played_well(curve)

# %%
choices[["system", "kind", "side", "name", "share_taken", "worth", "text", "share_of_gain"]]

# %%
facts = {f.key: f.facts for f in said}
for system, part in curve.groupby("system"):
    book = part[part["play"] == "book"].set_index("gap")
    eq = part[part["play"] == "equilibrium"].set_index("gap")
    assert book["p_a_wins"].is_monotonic_increasing and eq["p_a_wins"].is_monotonic_increasing, system
    assert (book.loc[0, "value"] == 0) and abs(eq.loc[0, "value"]) < 1e-9, system
matters = {f.facts["system"]: f.facts for f in said if f.key == "matters"}
parry = choices[(choices["system"] == "onesix") & (choices["kind"] == "dominated")]["name"]
assert "parry=always" in set(parry) and {"onesix", "kurs"} <= set(matters)
assert matters["onesix"]["rounds"][1] < matters["onesix"]["rounds"][0]  # 2K: never parrying shortens the fight
assert matters["kurs"]["rounds"][1] > matters["kurs"]["rounds"][0]  # К.У.Р.С.: guarded stances lengthen it
assert set(curve["system"]) | set(played.missing()) == {"tristat", "onesix", "tun", "kurs"}
