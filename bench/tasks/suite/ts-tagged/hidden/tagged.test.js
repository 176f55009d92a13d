const test = require("node:test");
const assert = require("node:assert/strict");
const { NoteStore } = require("../notes.js");
test("tagged", () => {
  const s = new NoteStore();
  s.add("a", "", ["work"]);
  s.add("b", "", ["home"]);
  s.add("c", "", ["work", "home"]);
  assert.deepEqual(s.tagged("work").map((n) => n.title), ["a", "c"]);
  assert.deepEqual(s.tagged("none"), []);
});
