"""Take the README's screenshot of `dicelab app` (docs/app.png) with Playwright and headless Chromium (`make
screenshot`), and record beside it (docs/app.png.json) what it was made from: a hash of the files that draw the page
and the numbers the page shows.  ``tests/test_examples.py`` fails when either has changed since.

    python docs/app_screenshot.py [--out docs/app.png] [--path "/duel?system=kurs&a=maximus&b=tiberius"]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ROOT = Path(__file__).resolve().parents[1]
DRAWN_BY = ("analysis/front/app/shell.py", "analysis/front/app/views.py", "analysis/front/app/controls.py",
            "analysis/front/app/text.py", "analysis/front/app/state.py", "analysis/front/app/model.py",
            "analysis/front/app/pages/duel.py", "docs/app_screenshot.py")
"""The files that draw the pictured page (its frame, pieces, words and the Duel page) and this script."""
PATH = "/duel?system=kurs&a=maximus&b=tiberius"


def inputs_hash() -> str:
    """sha256 of :data:`DRAWN_BY`, each file's path and bytes."""
    digest = hashlib.sha256()
    for name in DRAWN_BY:
        digest.update(name.encode() + b"\0" + (ROOT / name).read_bytes() + b"\0")
    return digest.hexdigest()


def shown_numbers(path: str) -> dict[str, float]:
    """The headline numbers of the pictured duel, as the library computes them today."""
    from analysis.front.app.pages import duel
    from analysis.front.app.state import decode

    d = duel.compute(decode(path.split("?", 1)[1])).duel
    return {k: d[k] for k in ("p_a_wins", "p_b_wins", "mean_rounds")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(Path(__file__).with_name("app.png")))
    parser.add_argument("--path", default=PATH)
    ns = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    proc = subprocess.Popen([sys.executable, "-c", "from analysis.front.cli import main; raise SystemExit(main())", "app",
                             "--port", "0", "--no-browser"], stdout=subprocess.PIPE, text=True)
    try:
        url = re.search(r"http://\S+", proc.stdout.readline()).group(0).rstrip("/")
        browser = os.environ.get("DICELAB_BROWSER") or shutil.which("chromium") or shutil.which("chromium-browser")
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=browser, args=ARGS)
            page = b.new_page(viewport={"width": 1440, "height": 900}, device_scale_factor=1)
            page.goto(url + ns.path)
            page.wait_for_selector("#results .card")
            page.wait_for_selector(".graph .main-svg")
            page.wait_for_timeout(1500)
            page.screenshot(path=ns.out)
            b.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)
    record = Path(ns.out).with_name(Path(ns.out).name + ".json")
    record.write_text(json.dumps({"path": ns.path, "inputs": inputs_hash(), "shows": shown_numbers(ns.path)},
                                 indent=2) + "\n", encoding="utf-8")
    print(ns.out, record)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
