// A DOM for the page's modules under `node --test`: jsdom from tools/web (npm ci --prefix
// tools/web), installed as the globals a browser has, before the modules are imported.

import { createRequire } from "node:module";

const require = createRequire(new URL("../../../tools/web/package.json", import.meta.url));
const { JSDOM } = require("jsdom");

export const dom = new JSDOM("<!doctype html><html><body></body></html>", { url: "http://127.0.0.1/" });
const { window } = dom;
for (const name of ["window", "document", "navigator", "Node", "Element", "HTMLElement", "DocumentFragment", "Event", "MouseEvent", "KeyboardEvent", "sessionStorage", "localStorage", "location", "history"]) {
  Object.defineProperty(globalThis, name, { value: name === "window" ? window : window[name], configurable: true, writable: true });
}
globalThis.requestAnimationFrame = (cb) => setTimeout(() => cb(Date.now()), 0);
globalThis.cancelAnimationFrame = (id) => clearTimeout(id);
