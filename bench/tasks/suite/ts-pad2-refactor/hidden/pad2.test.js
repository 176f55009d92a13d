const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { pad2, formatDate } = require("../time.js");
test("pad2", () => {
  assert.equal(pad2(5), "05");
  assert.equal(pad2(12), "12");
});
test("formatDate unchanged", () => {
  assert.equal(formatDate(new Date(Date.UTC(2024, 0, 5))), "2024-01-05");
  assert.equal(formatDate(new Date(Date.UTC(2024, 10, 25))), "2024-11-25");
});
test("formatDate uses pad2", () => {
  const src = fs.readFileSync(path.join(__dirname, "..", "time.js"), "utf8");
  const body = src.slice(src.indexOf("function formatDate"));
  assert.match(body, /pad2\(/);
});
