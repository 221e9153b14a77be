"""Fighters from archetypes, files and inline pairs: one clear line for every kind of bad input."""

from __future__ import annotations

import pytest

from analysis.cli import main

BAD = [
    ("tristat", "body=50", ["body", "50", "1..40"]),
    ("tristat", "bdy=5", ["bdy", "body"]),
    ("tristat", "grandmaster", ["grandmaster", "novice"]),
    ("tristat", "missing.toml", ["missing.toml", "no such file"]),
    ("onesix", "attack_rating=99", ["attack_rating", "99", "0..40"]),
    ("onesix", "weapon_class=laser", ["weapon_class", "laser", "wound, shock, ballistic"]),
    ("onesix", "trainig=3", ["trainig", "training"]),
    ("onesix", "grandmaster", ["grandmaster", "novice"]),
    ("tun", "body=50", ["body", "50", "1..24"]),
    ("tun", "bdy=5", ["bdy", "body"]),
    ("tun", "dice=2d6", ["dice", "2d6", "3d6, 1d20, 1d6x3"]),
    ("tun", "defends=maybe", ["defends", "maybe", "true or false"]),
    ("tun", "grandmaster", ["grandmaster", "novice"]),
    ("tun", "missing.toml", ["missing.toml", "no such file"]),
]


@pytest.mark.parametrize("system_id,spec,words", BAD)
def test_bad_fighters_get_clear_errors(capsys, system_id, spec, words):
    code = main(["duel", system_id, "--a", spec, "--b", "novice"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    for w in words:
        assert w in err
