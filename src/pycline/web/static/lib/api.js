// The JSON API beside the WebSocket. Errors carry the server's one-line reason.

import { session } from "./session.js";

/** @param {Response} r */
async function reason(r) {
  const data = await r.json().catch(() => ({}));
  return new Error(data.error || r.statusText);
}

export const api = {
  /** @param {string} path
   * @returns {Promise<any>} */
  async get(path) {
    const r = await fetch(path, { credentials: "omit", headers: session.headers() });
    if (!r.ok) throw await reason(r);
    return r.json();
  },
  /** @param {string} path
   * @param {object} [body]
   * @returns {Promise<any>} */
  async post(path, body = {}) {
    const r = await fetch(path, { method: "POST", credentials: "omit", headers: { "Content-Type": "application/json", ...session.headers() }, body: JSON.stringify(body) });
    if (!r.ok) throw await reason(r);
    return r.json().catch(() => ({}));
  },
  /** A file the user saves (an export): fetched with the credential, handed over as a blob.
   * @param {string} path
   * @param {string} name */
  async download(path, name) {
    const r = await fetch(path, { credentials: "omit", headers: session.headers() });
    if (!r.ok) throw await reason(r);
    const url = URL.createObjectURL(await r.blob());
    const a = document.createElement("a");
    Object.assign(a, { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  },
};

/** @param {string} id */
export const enc = (id) => encodeURIComponent(id);
