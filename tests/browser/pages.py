"""The HTML the browser tests load."""

from __future__ import annotations

# A button at (100..300, 100..160), an input at (100..400, 220..250), a page tall enough to scroll.
# White until the button is clicked, then green: the screenshot shows whether the click landed.
APP = """<!doctype html>
<html><head><title>Test app</title>
<style>
  body { margin: 0; background: rgb(255, 255, 255); font: 16px sans-serif; }
  #go { position: absolute; left: 100px; top: 100px; width: 200px; height: 60px; }
  #name { position: absolute; left: 100px; top: 220px; width: 300px; height: 30px; }
  #tall { height: 3000px; }
</style></head>
<body>
<button id="go">Press me</button>
<input id="name">
<div id="tall"></div>
<script>
  document.getElementById("go").addEventListener("click", (event) => {
    console.log("button clicked");
    event.target.textContent = "Clicked!";
    document.body.style.background = "rgb(0, 128, 0)";
  });
  document.getElementById("name").addEventListener("input", (event) => {
    console.log("typed:" + event.target.value);
  });
  window.addEventListener("scroll", () => console.log("scrolled to " + window.scrollY));
  console.log("page ready");
</script>
</body></html>
"""
BUTTON = (200, 130)
INPUT = (250, 235)

# A click that navigates: the result must show the new page, after it loaded.
LINKS = """<!doctype html><html><body style="margin:0">
<a href="/second" style="position:absolute;left:10px;top:10px;font-size:40px">next page</a>
</body></html>"""
SECOND = """<!doctype html><html><body><h1>Second</h1>
<script>console.warn("second page loaded")</script></body></html>"""
LINK = (60, 35)

ERRORS = """<!doctype html><html><body>
<script>alert("hello from alert"); console.error("after alert"); throw new Error("boom");</script>
</body></html>"""
