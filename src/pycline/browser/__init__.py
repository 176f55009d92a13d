"""The headless browser behind `browser_action`: one Chromium per task, driven by Playwright.

Playwright is a dependency, imported only when a browser is launched; the browser itself is the
system's Chromium, Chrome or Edge (see `chromium`), never downloaded at run time.
"""
