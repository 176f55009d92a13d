"""The headless browser behind `browser_action`: one Chromium per task, driven by Playwright.

Playwright is an optional extra (`pip install 'pycline[browser]'`) and is imported only when a
browser is launched; Chromium itself comes from the system (never downloaded at run time).
"""
