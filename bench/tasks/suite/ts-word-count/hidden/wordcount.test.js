const test = require("node:test");
const assert = require("node:assert/strict");
const { wordCount } = require("../strings.js");
test("empty", () => assert.equal(wordCount(""), 0));
test("spaces", () => assert.equal(wordCount("  two   words "), 2));
test("mixed whitespace", () => assert.equal(wordCount("a\tb\nc"), 3));
