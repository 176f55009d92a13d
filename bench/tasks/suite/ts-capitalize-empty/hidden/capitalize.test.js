const test = require("node:test");
const assert = require("node:assert/strict");
const { capitalize } = require("../strings.js");
test("empty", () => assert.equal(capitalize(""), ""));
test("word", () => assert.equal(capitalize("note"), "Note"));
