"""The report's combat figures played as the setup says (``--play``, RULES.md section 8): the tables are the
played duels, every caption names its play, and a bad play is refused in one line."""

from __future__ import annotations

import contextlib
import io

import pytest

from analysis.base.params import DicelabError
from analysis.fights import lethality
from analysis.fights.play import played_duel
from analysis.fights.setup import Setup
from analysis.front.cli import main
from analysis.front.report import ITEMS, caption
from analysis.front.report.config import load_setup
from analysis.systems import get_system

SID = "onesix"
"""A system whose book play of the setup's mirror is not its equilibrium (2K's dominated parry=always)."""
QUICK = "tun"
"""A system whose decision game is quick to solve."""


@pytest.fixture(scope="module")
def played() -> Setup:
    return Setup.build(play="equilibrium")


def test_the_skill_gap_and_rounds_are_the_played_duels(played):
    system = get_system(SID)
    rules = lethality.duel_rules(played.ruleset(SID))
    a, b = played.fighters(SID)
    book = lethality.skill_gap(SID, Setup.build(), gaps=(0,)).iloc[0]
    eq = lethality.skill_gap(SID, played, gaps=(0,)).iloc[0]
    game = played_duel(system, rules, a, b, "equilibrium").solution
    assert eq["p_a_wins"] == pytest.approx(game.p_a_wins, abs=1e-12)
    assert eq["mean_rounds"] == pytest.approx(game.mean_rounds, abs=1e-12)
    assert abs(eq["mean_rounds"] - book["mean_rounds"]) > 1e-3
    rounds = lethality.rounds_distribution(SID, played)
    assert rounds["p"].tolist() == pytest.approx([game.rounds[r] for r in rounds["round"]], abs=1e-12)


def test_the_played_lethality_curve_solves_the_game_at_each_number_of_finishing_attacks():
    system = get_system(QUICK)
    rules = system.rules(finish_attacks=3)
    setup = Setup.build(rules={QUICK: rules}, play="equilibrium")
    shown = lethality.finishing(QUICK, setup)["p_killed"].tolist()
    a, b = setup.fighters(QUICK)
    killed = [played_duel(system, rules.replace(after_out="stop"), a, b, "equilibrium").to_dict()["p_killed"]] + [
        played_duel(system, rules.replace(after_out="finish", finish_attacks=k), a, b, "equilibrium").to_dict()[
            "p_killed"] for k in (1, 2, 3)]
    assert shown == pytest.approx(killed, abs=1e-12) and shown == sorted(shown) and shown[0] < shown[-1]


def test_every_duel_caption_names_its_play(played):
    by_name = {item.name: item for item in ITEMS}
    for name in ("skill_gap", "rounds", "lethality"):
        assert "played: equilibrium" in caption(by_name[name], played, "en")
    for name in ("variant_effects", "policy_effects"):
        assert "played: book" in caption(by_name[name], played, "en")
    assert "played: book" in caption(by_name["skill_gap"], Setup.build(), "en")
    assert "игра: равновесие (play=equilibrium)" in caption(by_name["skill_gap"], played, "ru")


def test_the_play_comes_from_the_config_and_the_command_line_overrides_it(tmp_path):
    config = tmp_path / "mine.toml"
    config.write_text('play = "best"\n')
    assert load_setup(config).play == "best"
    assert load_setup(config, play="equilibrium").play == "equilibrium"
    assert load_setup(None).play == "book"
    config.write_text('play = "sometimes"\n')
    with pytest.raises(DicelabError, match="play = 'sometimes'.*book, best, equilibrium"):
        load_setup(config)


def test_a_bad_play_on_the_command_line_is_one_line_and_writes_nothing(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["report", "--out", str(tmp_path / "r"), "--play", "sometimes"])
    assert code != 0 and "--play" in err.getvalue() and "equilibrium" in err.getvalue()
    assert not (tmp_path / "r").exists()
