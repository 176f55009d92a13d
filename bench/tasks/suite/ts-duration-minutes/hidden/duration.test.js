const test = require("node:test");
const assert = require("node:assert/strict");
const { parseDuration } = require("../time.js");
test("hours and minutes", () => {
  assert.equal(parseDuration("1h30m"), 90);
  assert.equal(parseDuration("45m"), 45);
  assert.equal(parseDuration("2h"), 120);
  assert.throws(() => parseDuration("soon"));
});
