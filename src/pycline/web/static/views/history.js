// History: search, sort (Newest, Oldest, Most Expensive, Most Tokens), Workspace Only (on at
// first: this folder's tasks) and Favorites Only; each item names its folder, opens on click and
// can be starred, exported or deleted.

import { html } from "../lib/html.js";
import { useEffect, useRef, useState } from "../vendor/hooks.js";
import { api, enc } from "../lib/api.js";
import { errorText } from "../lib/store.js";

/**
 * @typedef {import("../lib/store.js").Store} Store
 * @typedef {{ id: string, ts: number, task: string, status: string, workspace: string, favorite: boolean,
 *   tokens_in: number, tokens_out: number, cache_reads?: number, cache_writes?: number, total_cost: number, model?: string }} HistoryItem
 */

const SORTS = [["newest", "Newest"], ["oldest", "Oldest"], ["cost", "Most Expensive"], ["tokens", "Most Tokens"]];

/** @param {{ store: Store }} props */
export function HistoryView({ store }) {
  const shown = store.screen === "history";
  const [search, setSearch] = useState("");
  const [sort, setSort] = useState("newest");
  const [workspaceOnly, setWorkspaceOnly] = useState(true);
  const [favorites, setFavorites] = useState(false);
  const [rows, setRows] = useState(/** @type {HistoryItem[] | null} */ (null));
  const [reload, setReload] = useState(0);
  const asked = useRef(0);

  useEffect(() => {
    if (!shown) return;
    const seq = ++asked.current;
    const q = new URLSearchParams({ search, sort, workspace: workspaceOnly ? "1" : "0", favorites: favorites ? "1" : "0" });
    const timer = setTimeout(() => {
      api.get(`/api/history?${q}`).then((found) => seq === asked.current && setRows(found)).catch((e) => store.notify(errorText(e), true));
    }, search ? 150 : 0);
    return () => clearTimeout(timer);
  }, [shown, search, sort, workspaceOnly, favorites, reload]);

  const again = () => setReload(reload + 1);
  return html`<section class="history" aria-label="History" hidden=${!shown}>
    <div class="view-head"><h1>History</h1><button type="button" onClick=${() => store.show("chat")}>Done</button></div>
    <div class="filters">
      <input type="search" aria-label="Search history" placeholder="Fuzzy search history…" value=${search}
        onInput=${(/** @type {Event} */ e) => setSearch(/** @type {HTMLInputElement} */ (e.currentTarget).value)} />
      <select aria-label="Sort" value=${sort} onChange=${(/** @type {Event} */ e) => setSort(/** @type {HTMLSelectElement} */ (e.currentTarget).value)}>
        ${SORTS.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
      </select>
      <label><input type="checkbox" checked=${workspaceOnly} onChange=${(/** @type {Event} */ e) => setWorkspaceOnly(/** @type {HTMLInputElement} */ (e.currentTarget).checked)} /> Workspace Only</label>
      <label><input type="checkbox" checked=${favorites} onChange=${(/** @type {Event} */ e) => setFavorites(/** @type {HTMLInputElement} */ (e.currentTarget).checked)} /> Favorites Only</label>
    </div>
    <ul class="history-list" aria-label="Tasks">
      ${rows === null ? null : rows.length ? rows.map((r) => html`<${Item} key=${r.id} store=${store} r=${r} changed=${again} />`)
        : html`<li class="muted">${workspaceOnly ? "No tasks in this folder." : "No tasks."}</li>`}
    </ul>
  </section>`;
}

/** @param {{ store: Store, r: HistoryItem, changed: () => void }} props */
function Item({ store, r, changed }) {
  const favorite = async () => {
    await api.post(`/api/history/${enc(r.id)}/favorite`, { favorite: !r.favorite }).catch((e) => store.notify(errorText(e), true));
    changed();
  };
  const remove = async () => {
    if (!confirm("Delete this task and its checkpoints?")) return;
    try {
      await api.post(`/api/history/${enc(r.id)}/delete`, {});
    } catch (e) {
      return store.notify(errorText(e), true);
    }
    changed();
  };
  // Fetched with the session credential (a plain link would carry none), saved as a file.
  const exportTask = () => api.download(`/api/history/${enc(r.id)}/export`, `task-${r.id}.md`).catch((e) => store.notify(errorText(e), true));
  const open = () => store.openSaved(r.id).catch((e) => store.notify(errorText(e), true));
  return html`<li class="history-item">
    <div class="history-top"><span class="muted">${new Date(r.ts * 1000).toLocaleString()}</span><span class=${`status ${r.status}`}>${r.status}</span></div>
    <button type="button" class="history-open" aria-label=${`Open task: ${r.task.slice(0, 80)}`} onClick=${open}>${r.task.slice(0, 200)}</button>
    <div class="history-meta">
      <span class="folder" aria-label="Folder" title=${r.workspace}>${r.workspace}</span>
      <span>Tokens ↑${r.tokens_in} ↓${r.tokens_out}</span>
      ${r.cache_reads || r.cache_writes ? html`<span>Cache ${r.cache_reads || 0} read, ${r.cache_writes || 0} written</span>` : null}
      <span>$${r.total_cost.toFixed(4)}</span><span>${r.model || ""}</span>
      <span class="spacer" />
      <button type="button" class="icon star" aria-label=${r.favorite ? "Unfavorite" : "Favorite"} aria-pressed=${String(!!r.favorite)} onClick=${favorite}>${r.favorite ? "★" : "☆"}</button>
      <button type="button" class="button-like" onClick=${exportTask}>Export</button>
      <button type="button" class="secondary" onClick=${remove}>Delete</button>
    </div>
  </li>`;
}
