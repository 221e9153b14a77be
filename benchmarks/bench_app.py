"""Benchmark: how fast `dicelab app` answers (targets: a check or tune answer < 300 ms after a control changes; an
exact duel between archetypes < 1 s).

Three layers, each printed with its median and worst (or 90th percentile):

1. the library call and the view of each page (``compute`` and ``view`` in-process, fresh inputs every call);
2. the server round trip: the app served on a free local port, one HTTP request of the page's results callback
   per fresh setting (the computation runs in the app's job pool, as in use);
3. in a real browser (headless Chromium, when present): a control typed into, until the number on screen is
   redrawn, measured inside the page (``performance.now()`` at the change, a MutationObserver at the redraw).

The load average is printed beside the figures: other work on the machine slows every number here.

    python benchmarks/bench_app.py [--calls 20] [--no-browser]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import statistics
import threading
import time
from typing import Any, Callable, Iterable, Mapping

from analysis.fights.fighters import archetypes
from analysis.front.app.pages import checks, compare, duel, tune
from analysis.systems import SYSTEM_IDS

os.environ["DICELAB_CACHE"] = "off"  # time the solves, never the disk store of solved chains

CHECK_TARGET_MS = 300.0
DUEL_TARGET_MS = 1000.0
VALUES = {"tristat": ("c.target", range(2, 13)), "onesix": ("c.rating", range(3, 16)),
          "tun": ("c.limit", range(4, 19)), "kurs": ("c.skill", range(-3, 6))}


def summary(ms: list[float], target: float | None = None) -> str:
    worst = max(ms)
    text = f"median {statistics.median(ms):7.1f} ms  worst {worst:7.1f} ms  (n={len(ms)})"
    if target is not None:
        text += "  " + ("ok" if statistics.median(ms) < target else f"OVER {target:.0f} ms")
    return text


def check_states(system_id: str, n: int) -> list[dict[str, str]]:
    """Fresh check settings: the main value over its range, times a modifier of the variant set."""
    key, values = VALUES[system_id]
    variants = {"tristat": [{"r.die": str(d)} for d in (4, 6, 8, 10, 12, 20)],
                "onesix": [{"r.explode_depth": str(d)} for d in ("none", 0, 1, 2, 3)],
                "tun": [{"c.dice": d} for d in ("3d6", "1d20", "1d6x3")],
                "kurs": [{"r.dk_faces": f} for f in ("default", "fudge", "d5")]}[system_id]
    cases = itertools.product(variants, values)
    return [{"system": system_id, key: str(v), **extra} for extra, v in itertools.islice(cases, n)]


def tune_states(system_id: str, n: int) -> list[dict[str, str]]:
    probs = itertools.cycle(("0.1", "0.25", "0.5", "0.7", "0.85", "0.9"))
    return [{**s, "p": next(probs), "to": "kurs" if system_id != "kurs" else "tun"} for s in check_states(system_id, n)]


def duel_states(system_id: str) -> list[dict[str, str]]:
    """Every archetype pairing (the requirement's exact duel between archetypes)."""
    names = list(archetypes(system_id))
    return [{"system": system_id, "a": a, "b": b} for a, b in itertools.product(names, names)]


def library(page: Any, states: Iterable[Mapping[str, str]]) -> tuple[list[float], list[float]]:
    """Milliseconds of ``compute`` and of ``view`` for each state."""
    computes, views = [], []
    for state in states:
        start = time.perf_counter()
        result = page.compute(state)
        mid = time.perf_counter()
        page.view(result, state, "en")
        computes.append((mid - start) * 1000)
        views.append((time.perf_counter() - mid) * 1000)
    return computes, views


# ------------------------------------------------------------------ server
class Served:
    """The app on a free local port in this process (its own job pool, as ``dicelab app`` runs it)."""

    def __init__(self) -> None:
        import logging

        from werkzeug.serving import make_server

        from analysis.front.app.shell import create_app

        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        self.app = create_app()
        self.server = make_server("127.0.0.1", 0, self.app.server, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        from analysis.front.app.shell import cleanup

        self.server.shutdown()
        cleanup(self.app)


def results_request(url: str, page: str, search: str, client: str) -> tuple[float, dict[str, Any]]:
    """One request of the results callback: (milliseconds, response)."""
    import requests

    body = {"output": "..results.children...tables.data...poll.disabled...job.data..",
            "outputs": [{"id": i, "property": p} for i, p in
                        (("results", "children"), ("tables", "data"), ("poll", "disabled"), ("job", "data"))],
            "inputs": [{"id": "url", "property": "pathname", "value": f"/{page}"},
                       {"id": "url", "property": "search", "value": search}],
            "changedPropIds": ["url.search"], "state": [{"id": "client", "property": "data", "value": client}]}
    start = time.perf_counter()
    r = requests.post(f"{url}/_dash-update-component", data=json.dumps(body),
                      headers={"Content-Type": "application/json"}, timeout=60)
    ms = (time.perf_counter() - start) * 1000
    r.raise_for_status()
    return ms, r.json()


def round_trips(url: str, page: str, states: Iterable[Mapping[str, str]]) -> list[float]:
    from analysis.front.app.state import encode

    out = []
    for i, state in enumerate(states):
        ms, data = results_request(url, page, encode(state), f"bench-{page}-{i}")
        assert data["response"]["poll"]["disabled"] is True, f"{page} {state}: answered with progress, not a result"
        out.append(ms)
    return out


# ----------------------------------------------------------------- browser
CHANGE = """([sel, text]) => new Promise(resolve => {
  const input = document.querySelector(sel);
  if (input.value === text) { resolve(null); return; }
  const old = document.querySelector('#cli').textContent, start = performance.now();
  setTimeout(() => resolve(-1), 15000);
  const obs = new MutationObserver(() => {
    const now = document.querySelector('#cli');
    if (now && now.textContent !== old) { obs.disconnect(); resolve(performance.now() - start); }
  });
  obs.observe(document.querySelector('#results'), {subtree: true, childList: true, characterData: true});
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
  setter.call(input, text);
  input.dispatchEvent(new Event('input', {bubbles: true}));
})"""
"""Type into a control; resolve with the milliseconds until the results are redrawn for the new value (their
command line, drawn with the numbers, names it), ``null`` when the value is already shown, -1 after 15 s."""


def in_browser(url: str, n: int) -> dict[str, list[float]]:
    """Milliseconds from typing into a control to the redrawn number, per page (a value equal to the shown one
    is skipped: nothing would be redrawn)."""
    from playwright.sync_api import sync_playwright

    browser_path = os.environ.get("DICELAB_BROWSER") or shutil.which("chromium") or shutil.which("chromium-browser")
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
    out: dict[str, list[float]] = {}
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=browser_path, args=args)
        page = b.new_page(viewport={"width": 1400, "height": 1000})
        for name, path, key, values, watch in (
            ("checks: tun limit", "/checks?system=tun", "c.limit", range(4, 19), "#out-p_success"),
            ("checks: onesix rating", "/checks?system=onesix", "c.rating", range(3, 16), "#out-p_success"),
            ("tune: tristat target", "/tune?system=tristat", "c.target", range(2, 13), "#out-modifier"),
            ("duel: kurs maximus attack_skill", "/duel?system=kurs&a=maximus&b=tiberius", "a.attack_skill",
             range(0, 9), "#out-p_a_wins"),
            ("duel: tristat veteran attack_bonus", "/duel?system=tristat", "a.attack_bonus", range(0, 7),
             "#out-p_a_wins"),
        ):
            page.goto(url + path)
            page.wait_for_selector(watch)
            page.wait_for_selector(".graph .main-svg")
            selector = f"input[id*='\"key\":\"{key}\"']"
            texts = [str(v) for v in itertools.islice(itertools.cycle(values), n)]
            measured = [page.evaluate(CHANGE, [selector, v]) for v in texts]
            assert -1 not in measured, f"{name}: a number was not redrawn within 15 s"
            out[name] = [ms for ms in measured if ms is not None]
        b.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20, help="settings per measurement (default 20)")
    parser.add_argument("--no-browser", action="store_true", help="skip the browser measurement")
    ns = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    checks.compute({"system": "tun"})  # warm the imports and the dice caches

    print("\n1. library call + view, in-process")
    for sid in SYSTEM_IDS:
        c, v = library(checks, check_states(sid, ns.calls))
        print(f"  checks  {sid:8} compute {summary(c, CHECK_TARGET_MS)} | view {summary(v)}")
        c, v = library(tune, tune_states(sid, ns.calls))
        print(f"  tune    {sid:8} compute {summary(c, CHECK_TARGET_MS)} | view {summary(v)}")
        c, v = library(duel, duel_states(sid))
        print(f"  duel    {sid:8} compute {summary(c, DUEL_TARGET_MS)} | view {summary(v)}  (every archetype pairing)")
    c, v = library(compare, [{"system": s, "r2.lethal_at": "dead"} for s in SYSTEM_IDS])
    print(f"  compare two rule sets      compute {summary(c)} | view {summary(v)}")

    print("\n2. server round trip (results callback over HTTP, fresh settings)")
    served = Served()
    try:
        for sid in SYSTEM_IDS:
            states = check_states(sid, ns.calls)
            print(f"  checks  {sid:8} {summary(round_trips(served.url, 'checks', states), CHECK_TARGET_MS)}")
            print(f"  tune    {sid:8} {summary(round_trips(served.url, 'tune', tune_states(sid, ns.calls)), CHECK_TARGET_MS)}")
            print(f"  duel    {sid:8} {summary(round_trips(served.url, 'duel', duel_states(sid)), DUEL_TARGET_MS)}")
        if not ns.no_browser and (shutil.which("chromium") or os.environ.get("DICELAB_BROWSER")):
            print("\n3. in the browser: control changed -> number redrawn (measured inside the page)")
            for name, ms in in_browser(served.url, ns.calls).items():
                target = DUEL_TARGET_MS if name.startswith("duel") else CHECK_TARGET_MS
                print(f"  {name:34} {summary(ms, target)}")
    finally:
        served.close()
    print(f"\nload average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
