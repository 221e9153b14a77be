"""Take the README's screenshot of `dicelab app` (docs/app.png) with Playwright and headless Chromium.

    python docs/app_screenshot.py [--out docs/app.png] [--path "/duel?system=kurs&a=maximus&b=tiberius"]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(Path(__file__).with_name("app.png")))
    parser.add_argument("--path", default="/duel?system=kurs&a=maximus&b=tiberius")
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
    print(ns.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
