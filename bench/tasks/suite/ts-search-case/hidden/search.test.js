const test = require("node:test");
const assert = require("node:assert/strict");
const { NoteStore } = require("../notes.js");
test("case-insensitive", () => {
  const s = new NoteStore();
  s.add("Buy Milk", "Two LITRES");
  s.add("Other", "nothing");
  assert.deepEqual(s.search("milk").map((n) => n.id), [1]);
  assert.deepEqual(s.search("litres").map((n) => n.id), [1]);
  assert.equal(s.search("zzz").length, 0);
});
