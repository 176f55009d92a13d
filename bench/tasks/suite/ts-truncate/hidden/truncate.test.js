const test = require("node:test");
const assert = require("node:assert/strict");
const { truncate } = require("../strings.js");
test("truncate", () => {
  assert.equal(truncate("hello world", 5), "hell…");
  assert.equal(truncate("short", 5), "short");
  assert.equal(truncate("", 3), "");
});
