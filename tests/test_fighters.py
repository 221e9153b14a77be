"""Fighters from archetypes, files and inline pairs: one clear line for every kind of bad input."""

from __future__ import annotations

import pytest

from analysis.front.cli import main

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


# ------------------------------------------------- empty input is never a default (issue 17)
def duel_a(capsys, spec: str) -> tuple[int, str]:
    code = main(["duel", "tristat", "--a", spec, "--b", "novice", "--json"])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("text,given", [
    ('name = "Bob"\n', "(only name)"),
    ('name = "Bob"\nnote = "a hero"\n', "(only name, note)"),
    ("# nothing but a comment\n", ""),
])
def test_a_fighter_file_without_parameters_is_refused(capsys, tmp_path, text, given):
    path = tmp_path / "hero.toml"
    path.write_text(text)
    code, err = duel_a(capsys, str(path))
    assert code == 2 and err.count("\n") == 1
    assert "names no fighter parameter and no archetype" in err and given in err and "hero.toml" in err


def test_an_empty_json_fighter_is_refused(capsys, tmp_path):
    path = tmp_path / "hero.json"
    path.write_text("{}")
    code, err = duel_a(capsys, str(path))
    assert code == 2 and "names no fighter parameter and no archetype" in err


def test_a_fighter_file_naming_only_an_archetype_is_that_archetype(capsys, tmp_path):
    import json

    path = tmp_path / "hero.toml"
    path.write_text('archetype = "veteran"\n')
    main(["duel", "tristat", "--a", str(path), "--b", "novice", "--json"])
    mine = json.loads(capsys.readouterr().out)
    main(["duel", "tristat", "--a", "veteran", "--b", "novice", "--json"])
    book = json.loads(capsys.readouterr().out)
    assert mine["p_a_wins"] == book["p_a_wins"] and mine["a"]["name"] == "hero"


@pytest.mark.parametrize("spec", ["", "   "])
def test_the_library_refuses_an_empty_fighter(spec):
    from analysis.base.params import DicelabError
    from analysis.fights.fighters import load_fighter
    from analysis.systems import get_system

    with pytest.raises(DicelabError, match="is not allowed; allowed: an archetype name"):
        load_fighter(get_system("kurs"), spec)
