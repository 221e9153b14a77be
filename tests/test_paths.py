"""Every path the user gives is checked before work starts: one line naming the path and the problem, exit 2,
nothing written or replaced except a regular file the user named (issue 14.1)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

import analysis.base.files
from analysis.front.cli import main

ROOT = os.geteuid() == 0


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, argv: list[str], *words: str) -> str:
    """Run, and assert the refusal: exit 2, nothing on stdout, one line on stderr holding every word."""
    code, out, err = run(capsys, *argv)
    assert code == 2, err
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for word in words:
        assert word in err, (word, err)
    return err


def tree(path: Path) -> dict[str, str]:
    """Every entry under ``path`` with its kind, to show that nothing was written."""
    return {str(p.relative_to(path)): "link" if p.is_symlink() else "dir" if p.is_dir() else "file"
            for p in sorted(path.rglob("*"))}


@pytest.fixture
def unwritable(monkeypatch):
    """Make ``os.access`` deny writing to the given paths also for root (who may write anywhere)."""
    denied: set[str] = set()
    real = os.access

    def access(path, mode, *args, **kwargs):
        if mode & os.W_OK and os.path.realpath(path) in denied:
            return False
        return real(path, mode, *args, **kwargs)

    monkeypatch.setattr(analysis.base.files.os, "access", access)

    def deny(path: Path) -> None:
        path.chmod(path.stat().st_mode & ~0o222)
        denied.add(os.path.realpath(path))

    yield deny


# ------------------------------------------------------------------- outputs
def test_out_to_a_directory(capsys, tmp_path):
    (tmp_path / "d").mkdir()
    refused(capsys, ["table", "kurs", "--out", str(tmp_path / "d")], "is a directory")
    assert tree(tmp_path) == {"d": "dir"}


def test_out_with_a_missing_parent(capsys, tmp_path):
    refused(capsys, ["table", "kurs", "--out", str(tmp_path / "no" / "t.md")], "does not exist", "no")
    assert tree(tmp_path) == {}


def test_out_under_a_file(capsys, tmp_path):
    (tmp_path / "f").write_text("x")
    refused(capsys, ["table", "kurs", "--out", str(tmp_path / "f" / "t.md")], "is not a directory")
    refused(capsys, ["table", "kurs", "--out", str(tmp_path / "f" / "g" / "t.md")], "not a directory")
    assert (tmp_path / "f").read_text() == "x"


def test_out_in_a_read_only_directory(capsys, tmp_path, unwritable):
    d = tmp_path / "ro"
    d.mkdir()
    unwritable(d)
    refused(capsys, ["table", "kurs", "--out", str(d / "t.md")], "permission denied", "not writable")
    assert tree(d) == {}


def test_out_onto_a_read_only_file(capsys, tmp_path, unwritable):
    f = tmp_path / "t.md"
    f.write_text("keep")
    unwritable(f)
    refused(capsys, ["table", "kurs", "--out", str(f)], "permission denied", "read-only")
    assert f.read_text() == "keep"


def test_out_empty_writes_nothing(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    refused(capsys, ["table", "kurs", "--out", ""], "--out = ''", "a file path")
    assert tree(tmp_path) == {}


def test_out_ending_in_a_slash(capsys, tmp_path):
    refused(capsys, ["table", "kurs", "--out", str(tmp_path / "t.md") + "/"], "ends in '/'")
    assert tree(tmp_path) == {}


def test_out_onto_a_fifo_is_left_alone(capsys, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    refused(capsys, ["table", "kurs", "--out", str(fifo)], "not a regular file")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.skipif(not ROOT, reason="making a device node needs root")
def test_out_onto_a_device_is_left_alone(capsys, tmp_path):
    dev = tmp_path / "null"
    os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    refused(capsys, ["table", "kurs", "--out", str(dev)], "not a regular file", "left alone")
    assert stat.S_ISCHR(os.lstat(dev).st_mode)


def test_out_through_a_symlink_replaces_the_target_and_keeps_the_link(capsys, tmp_path):
    target = tmp_path / "real.md"
    target.write_text("old")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    code, _, err = run(capsys, "table", "kurs", "--out", str(link))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text().startswith("# K.U.R.S.")
    assert tree(tmp_path) == {"link.md": "link", "real.md": "file"}


def test_out_through_a_dangling_symlink_creates_its_target(capsys, tmp_path):
    link = tmp_path / "link.md"
    link.symlink_to(tmp_path / "new.md")
    assert run(capsys, "table", "kurs", "--out", str(link))[0] == 0
    assert link.is_symlink() and (tmp_path / "new.md").read_text().startswith("# K.U.R.S.")


def test_out_onto_a_symlink_loop(capsys, tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    refused(capsys, ["table", "kurs", "--out", str(tmp_path / "a")], "symlink loop")
    assert tree(tmp_path) == {"a": "link", "b": "link"}


def test_out_replaces_a_regular_file_and_keeps_its_mode(capsys, tmp_path):
    f = tmp_path / "t.md"
    f.write_text("old")
    f.chmod(0o600)
    assert run(capsys, "table", "kurs", "--out", str(f))[0] == 0
    assert f.read_text().startswith("# K.U.R.S.") and stat.S_IMODE(f.stat().st_mode) == 0o600


def test_a_failed_write_is_one_line_and_leaves_nothing(capsys, tmp_path, monkeypatch):
    def full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(analysis.base.files.os, "replace", full)
    refused(capsys, ["table", "kurs", "--out", str(tmp_path / "t.md")], "cannot be written", "No space left")
    assert tree(tmp_path) == {}


def test_report_out_empty_writes_nothing(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "index.html").write_text("mine")
    refused(capsys, ["report", "--out", ""], "--out = ''", "a directory path")
    assert tree(tmp_path) == {"index.html": "file"} and (tmp_path / "index.html").read_text() == "mine"


@pytest.mark.parametrize("make,words", [
    (lambda d: (d / "f").write_text("x") and d / "f", ["exists and is not a directory"]),
    (lambda d: d / "no" / "out", ["does not exist"]),
])
def test_report_out_is_checked_before_work(capsys, tmp_path, make, words):
    before = None
    path = make(tmp_path)
    before = tree(tmp_path)
    refused(capsys, ["report", "--out", str(path)], *words)
    assert tree(tmp_path) == before


def test_report_out_in_a_read_only_directory(capsys, tmp_path, unwritable):
    unwritable(tmp_path)
    refused(capsys, ["report", "--out", str(tmp_path)], "permission denied")
    assert tree(tmp_path) == {}


# ------------------------------------------------------------- fighter files
def duel_with(capsys, path: Path, *words: str) -> str:
    return refused(capsys, ["duel", "tristat", "--a", str(path), "--b", "novice"], str(path.name), *words)


def test_fighter_file_missing(capsys, tmp_path):
    duel_with(capsys, tmp_path / "hero.toml", "no such file")


def test_fighter_file_is_a_directory(capsys, tmp_path):
    (tmp_path / "hero.toml").mkdir()
    duel_with(capsys, tmp_path / "hero.toml", "is a directory")


def test_fighter_file_is_empty(capsys, tmp_path):
    (tmp_path / "hero.toml").write_text("")
    duel_with(capsys, tmp_path / "hero.toml", "is empty")


def test_fighter_file_is_a_fifo(capsys, tmp_path):
    os.mkfifo(tmp_path / "hero.toml")
    duel_with(capsys, tmp_path / "hero.toml", "not a regular file")


def test_fighter_file_without_read_permission(capsys, tmp_path, monkeypatch):
    path = tmp_path / "hero.toml"
    path.write_text("body = 5\n")
    path.chmod(0)
    if ROOT:  # root reads anything: make the open fail as it does for everyone else
        def denied(*args, **kwargs):
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(analysis.base.files, "open", denied, raising=False)
    duel_with(capsys, path, "permission denied")


def test_fighter_file_too_large(capsys, tmp_path):
    path = tmp_path / "hero.toml"
    path.write_text("# padding\n" * 200_000 + "body = 5\n")
    duel_with(capsys, path, "bytes; allowed: at most 1,048,576")


def test_fighter_file_not_utf8(capsys, tmp_path):
    path = tmp_path / "hero.toml"
    path.write_bytes(b"body = 5\nname = '\xff\xfe'\n")
    duel_with(capsys, path, "not UTF-8")


@pytest.mark.parametrize("suffix,text", [(".toml", "body = {}\n"), (".json", '{{"body": {}}}')])
def test_fighter_file_with_an_integer_too_long_to_read(capsys, tmp_path, suffix, text):
    path = tmp_path / f"hero{suffix}"
    path.write_text(text.format("9" * 5000))
    err = duel_with(capsys, path, "integer too long to read")
    assert len(err) < 300


@pytest.mark.parametrize("suffix,text", [(".toml", "body = {}\n"), (".json", '{{"body": {}}}')])
def test_fighter_file_with_a_huge_integer(capsys, tmp_path, suffix, text):
    path = tmp_path / f"hero{suffix}"
    path.write_text(text.format("9" * 400))
    err = duel_with(capsys, path, "body = 9999", "(400 digits)", "1..40")
    assert len(err) < 300


@pytest.mark.parametrize("suffix,text", [
    (".toml", "body = " + "[" * 50_000 + "]" * 50_000 + "\n"),
    (".json", '{"body": ' + "[" * 50_000 + "]" * 50_000 + "}"),
])
def test_fighter_file_nested_too_deeply(capsys, tmp_path, suffix, text):
    path = tmp_path / f"hero{suffix}"
    path.write_text(text)
    duel_with(capsys, path, "nested")


def test_fighter_file_nested_past_the_limit(capsys, tmp_path):
    path = tmp_path / "hero.json"
    path.write_text('{"body": ' + "[" * 40 + "]" * 40 + "}")
    duel_with(capsys, path, "nested more than 32 levels deep")


def test_fighter_file_json_duplicate_key(capsys, tmp_path):
    path = tmp_path / "hero.json"
    path.write_text('{"body": 5, "mind": 4, "body": 6}')
    duel_with(capsys, path, "body is given twice (5 and 6)")


def test_fighter_file_toml_duplicate_key(capsys, tmp_path):
    path = tmp_path / "hero.toml"
    path.write_text("body = 5\nbody = 6\n")
    duel_with(capsys, path, "not valid TOML")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_fighter_file_json_nan_and_infinity(capsys, tmp_path, constant):
    path = tmp_path / "hero.json"
    path.write_text(f'{{"body": {constant}}}')
    duel_with(capsys, path, constant, "strict JSON")


@pytest.mark.parametrize("suffix,text", [(".toml", "body = 5 = 6\n"), (".json", '{"body": 5,}')])
def test_fighter_file_invalid_syntax(capsys, tmp_path, suffix, text):
    path = tmp_path / f"hero{suffix}"
    path.write_text(text)
    duel_with(capsys, path, f"not valid {suffix[1:].upper()}")


def test_fighter_file_not_a_table(capsys, tmp_path):
    path = tmp_path / "hero.json"
    path.write_text(json.dumps([1, 2]))
    duel_with(capsys, path, "expected a table of parameters")


# --------------------------------------------------------------- rules files
def rules_with(capsys, path: str, *words: str) -> str:
    return refused(capsys, ["check", "onesix", "--rating", "9", "--rules", path], *words)


def test_rules_file_empty_path(capsys):
    rules_with(capsys, "", "rules file = ''", "a file path")


def test_rules_file_is_a_directory(capsys, tmp_path):
    rules_with(capsys, str(tmp_path), "is a directory")


def test_rules_file_missing(capsys, tmp_path):
    rules_with(capsys, str(tmp_path / "house.toml"), "house.toml", "no such file")


def test_rules_file_with_an_integer_too_long_to_read(capsys, tmp_path):
    path = tmp_path / "house.toml"
    path.write_text("[onesix]\nexplode_depth = " + "9" * 5000 + "\n")
    rules_with(capsys, str(path), "house.toml", "integer too long to read")


def test_rules_file_nested_too_deeply(capsys, tmp_path):
    path = tmp_path / "house.toml"
    path.write_text("[onesix]\nexplode_depth = " + "[" * 50_000 + "]" * 50_000 + "\n")
    rules_with(capsys, str(path), "house.toml", "nested")


def test_rules_file_is_a_fifo(capsys, tmp_path):
    os.mkfifo(tmp_path / "house.toml")
    rules_with(capsys, str(tmp_path / "house.toml"), "not a regular file")
