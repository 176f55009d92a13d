// MCP Servers: each server's status, tools and resources; enable/disable, restart, delete,
// per-tool Always allow (every box checked and fixed when useMcp lets every MCP tool run); add a server (it shows at once, "connecting…", and the list is read
// again until no server is connecting); trust the project's MCP file.

import { html } from "../lib/html.js";
import { useEffect, useRef, useState } from "../vendor/hooks.js";
import { api, enc } from "../lib/api.js";
import { errorText } from "../lib/store.js";

/**
 * @typedef {import("../lib/store.js").Store} Store
 * @typedef {{ name: string, status: string, error?: string | null, source?: string, needsLogin?: boolean,
 *   tools: { name: string, description?: string }[], resources: { uri: string, name?: string }[], autoApprove: string[] }} Server
 */

const POLL_MS = 700;
const IDLE_POLL_MS = 3000;
const SETTLING = new Set(["connecting", "disconnected"]);

/** @param {{ store: Store }} props */
export function McpView({ store }) {
  const shown = store.screen === "mcp";
  const [data, setData] = useState(/** @type {{ servers: Server[], untrusted: string | null, allAutoApproved?: boolean } | null} */ (null));
  const [n, setN] = useState(0);
  const expanded = useRef(new Set()); // which Tools/Resources sections stay open across refreshes
  useEffect(() => {
    if (!shown) return;
    let live = true;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    api.get("/api/mcp").then((d) => {
      if (!live) return;
      setData(d);
      // A server still connecting is shown as such and read again until it settles; the list
      // is read again now and then anyway (servers added or removed from a terminal).
      const settling = d.servers.some((/** @type {Server} */ s) => SETTLING.has(s.status));
      timer = setTimeout(() => setN((k) => k + 1), settling ? POLL_MS : IDLE_POLL_MS);
    }).catch((e) => store.notify(errorText(e), true));
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [shown, n]);
  const post = async (/** @type {string} */ path, /** @type {object} */ body = {}) => {
    try {
      await api.post(path, body);
    } catch (e) {
      store.notify(errorText(e), true);
    }
    setN((k) => k + 1);
  };
  return html`<section class="mcp" aria-label="MCP Servers" hidden=${!shown}>
    <div class="view-head"><h1>MCP Servers</h1><button type="button" onClick=${() => store.show("chat")}>Done</button></div>
    ${data?.untrusted ? html`<div class="banner"><span>The project's MCP file ${data.untrusted} is not trusted, so its servers were not started.</span>
      ${" "}<button type="button" class="primary" onClick=${() => post("/api/mcp/trust")}>Trust project file</button></div>` : null}
    <div class="mcp-list">
      ${data === null ? null : data.allAutoApproved
        ? html`<p class="warn" role="note">Every MCP tool runs without asking: "Use MCP servers" (useMcp) is on in the auto-approve settings.</p>`
        : html`<p class="muted" role="note">A tool asks before it runs unless it is set to always allow.</p>`}
      ${data === null ? null : data.servers.length
        ? data.servers.map((s) => html`<${ServerRow} key=${s.name} s=${s} all=${!!data.allAutoApproved} post=${post} expanded=${expanded.current} />`)
        : html`<p class="muted">No MCP servers configured.</p>`}
    </div>
    <${AddServer} post=${post} />
  </section>`;
}

/** @param {string} status */
function statusText(status) {
  return SETTLING.has(status) ? "connecting…" : status;
}

/** @param {{ s: Server, all: boolean, post: (path: string, body?: object) => Promise<void>, expanded: Set<string> }} props */
function ServerRow({ s, all, post, expanded }) {
  // With useMcp on (`all`) each box shows what happens, the tool runs unasked, and cannot say otherwise.
  const name = enc(s.name);
  /** @param {string} key
   * @param {string} title
   * @param {any} body */
  const section = (key, title, body) => html`<details open=${expanded.has(key)}
      onToggle=${(/** @type {Event} */ e) => (/** @type {HTMLDetailsElement} */ (e.currentTarget).open ? expanded.add(key) : expanded.delete(key))}>
    <summary>${title}</summary>${body}</details>`;
  return html`<div class="mcp-server">
    <div class="mcp-head"><span class=${`dot ${s.status}`} aria-hidden="true" /><strong>${s.name}</strong>
      <span class="muted"> ${s.needsLogin ? "needs login" : `${statusText(s.status)}${s.error ? `: ${s.error}` : ""}`}</span><span class="spacer" />
      ${s.needsLogin ? html`<button type="button" aria-label=${`Log in to ${s.name}`} onClick=${() => post(`/api/mcp/${name}/login`)}>Log in</button>` : null}
      <input type="checkbox" role="switch" checked=${s.status !== "disabled"} aria-label=${`Enable ${s.name}`}
        onChange=${(/** @type {Event} */ e) => post(`/api/mcp/${name}/enabled`, { enabled: /** @type {HTMLInputElement} */ (e.currentTarget).checked })} />
      <button type="button" aria-label=${`Restart ${s.name}`} onClick=${() => post(`/api/mcp/${name}/restart`)}>Restart</button>
      <button type="button" class="secondary" aria-label=${`Delete ${s.name}`} onClick=${() => confirm(`Delete the MCP server ${s.name}?`) && post(`/api/mcp/${name}/delete`)}>Delete</button>
    </div>
    ${section(`${s.name}/tools`, `Tools (${s.tools.length})`, html`<ul class="mcp-tools" aria-label=${`Tools of ${s.name}`}>
      ${s.tools.map((t) => html`<li><code>${t.name}</code><span class="muted"> ${t.description || ""}</span>
        <label><input type="checkbox" checked=${all || s.autoApprove.includes(t.name)} disabled=${all} aria-label=${`Always allow ${t.name}`}
          onChange=${(/** @type {Event} */ e) => post(`/api/mcp/${name}/auto-approve`, { tool: t.name, approve: /** @type {HTMLInputElement} */ (e.currentTarget).checked })} /> Always allow</label></li>`)}
    </ul>`)}
    ${section(`${s.name}/resources`, `Resources (${s.resources.length})`, html`<ul class="mcp-resources" aria-label=${`Resources of ${s.name}`}>
      ${s.resources.map((r) => html`<li><code>${r.uri}</code><span class="muted"> ${r.name || ""}</span></li>`)}
    </ul>`)}
  </div>`;
}

/** @param {{ post: (path: string, body?: object) => Promise<void> }} props */
function AddServer({ post }) {
  const [name, setName] = useState("");
  const [command, setCommand] = useState("");
  /** @param {Event} e */
  const submit = async (e) => {
    e.preventDefault();
    await post("/api/mcp/add", { name, command });
    setName("");
    setCommand("");
  };
  return html`<form class="mcp-add" aria-label="Add server" onSubmit=${submit}>
    <h2>Add server</h2>
    <input aria-label="Server name" placeholder="name" value=${name} onInput=${(/** @type {Event} */ e) => setName(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
    <input aria-label="Command or URL" placeholder="npx -y some-mcp-server  or  https://host/mcp" value=${command}
      onInput=${(/** @type {Event} */ e) => setCommand(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
    <button type="submit">Add</button>
  </form>`;
}
