// What the page knows about tools: the server's catalogue (name -> effect, Cline's titles, kind),
// sent with the hello message. Nothing here names a tool: the tool specs are the one source.

/** @typedef {import("../types/page").ToolFacts} ToolFacts */

/** @type {Map<string, ToolFacts>} */
const catalogue = new Map();

/** @type {ToolFacts} */
const UNKNOWN = { effect: "other", title: "", done_title: "", kind: "other", conversational: false };

/** @param {Record<string, ToolFacts> | undefined} tools */
export function setTools(tools) {
  catalogue.clear();
  for (const [name, facts] of Object.entries(tools || {})) catalogue.set(name, facts);
}

/** @param {string} name */
export function toolFacts(name) {
  return catalogue.get(name) || UNKNOWN;
}

/** Calls drawn as the message they carry (a question, the result, a plan), not as a tool row.
 * @param {string} name */
export function isConversational(name) {
  return toolFacts(name).conversational;
}

/** Reads, listings and searches in a row are drawn as one group ("Cline read, listed or searched…").
 * @param {string} name */
export function isGrouped(name) {
  const f = toolFacts(name);
  return f.effect === "read" && (f.kind === "read" || f.kind === "search");
}

/** Cline's words for a call, before it ran or after.
 * @param {string} name
 * @param {boolean | undefined} done */
export function toolTitle(name, done) {
  const f = toolFacts(name);
  return (done ? f.done_title : f.title) || "";
}
