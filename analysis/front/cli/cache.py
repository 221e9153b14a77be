"""``dicelab cache``: where solved 2K chains are kept between runs, how much they take, and clearing them."""

from __future__ import annotations

import argparse
from typing import Any

from analysis.front.cli import command, emit, emit_json


def register(sub: Any) -> None:
    p = command(sub, "cache", "Show the disk store of solved 2K duels (its directory, entries and size; "
                "DICELAB_CACHE=DIR moves it, DICELAB_CACHE=off keeps nothing), or empty it with --clear.",
                "dicelab cache --clear", run_cache)
    p.add_argument("--clear", action="store_true", help="remove every entry (the next runs solve again)")
    p.add_argument("--json", action="store_true", help="print JSON")


def run_cache(ns: argparse.Namespace) -> int:
    from analysis.base.diskcache import clear, summary

    removed = clear() if ns.clear else None
    info = summary()
    if ns.json:
        emit_json({**info, **({"removed": removed} if removed is not None else {})})
        return 0
    if not info["on"]:
        emit("dicelab cache: off (DICELAB_CACHE=off): no solved duel is kept between runs\n")
        return 0
    if removed is not None:
        emit(f"dicelab cache: removed {_entries(removed['entries'])} ({_size(removed['bytes'])}) from "
             f"{info['directory']}\n")
        return 0
    emit(f"dicelab cache: {info['directory']} (about {_size(info['max_bytes_per_kind'])} per kind at most, the "
         "least recently used go first; DICELAB_CACHE=DIR moves it, DICELAB_CACHE=off keeps nothing)\n")
    total = {"entries": 0, "bytes": 0}
    for kind, got in info["kinds"].items():
        emit(f"  {kind:<14} {_entries(got['entries']):>12}  {_size(got['bytes']):>9}\n")
        total = {k: total[k] + got[k] for k in total}
    emit(f"  {'total':<14} {_entries(total['entries']):>12}  {_size(total['bytes']):>9}\n")
    return 0


def _size(n: int) -> str:
    """Bytes in words: ``174.9 KiB``."""
    if n < 1024:
        return f"{n} B"
    return f"{n / 1024:.1f} KiB" if n < 1 << 20 else f"{n / (1 << 20):.1f} MiB"


def _entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"
