const test = require("node:test");
const assert = require("node:assert/strict");
const { NoteStore } = require("../notes.js");
test("remove", () => {
  const s = new NoteStore();
  s.add("a", "");
  s.add("b", "");
  assert.equal(s.remove(1), true);
  assert.equal(s.remove(1), false);
  assert.equal(s.count(), 1);
  assert.equal(s.get(2).title, "b");
});
