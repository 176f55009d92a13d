// What the page knows about tools: the server's catalogue (name -> effect, Cline's titles, kind),
// sent with the hello message. Nothing here names a tool: the tool specs are the one source.

const catalogue = new Map();

export function setTools(tools) {
  catalogue.clear();
  for (const [name, facts] of Object.entries(tools || {})) catalogue.set(name, facts);
}

export function toolFacts(name) {
  return catalogue.get(name) || { effect: "other", title: "", done_title: "", kind: "other", conversational: false };
}

// Calls drawn as the message they carry (a question, the result, a plan), not as a tool row.
export function isConversational(name) {
  return toolFacts(name).conversational;
}

// Reads, listings and searches in a row are drawn as one group ("Cline read, listed or searched…").
export function isGrouped(name) {
  const f = toolFacts(name);
  return f.effect === "read" && (f.kind === "read" || f.kind === "search");
}

export function toolTitle(name, done) {
  const f = toolFacts(name);
  return (done ? f.done_title : f.title) || "";
}
