// Module hooks for node20.mjs (they run on the loader's own thread).
const STUB =
  "data:text/javascript," +
  encodeURIComponent("export function globSync() { throw new Error('globSync needs Node 22'); }");

export async function load(url, context, next) {
  const result = await next(url, context);
  if (!url.includes("/@modelcontextprotocol/conformance/dist/") || result.source == null) {
    return result;
  }
  const text = String(result.source);
  if (!text.includes("globSync as o,")) {
    return result;
  }
  const body = text.replace(/^#!.*\n/, "").replace("globSync as o,", "");
  return { ...result, source: `import{globSync as o}from"${STUB}";${body}`, shortCircuit: true };
}
