// The page's entry: logs in with the one-use token from the address (then the session credential
// it gives carries on, `lib/session.js`), then draws the app and connects to the server.

import { html, render } from "./lib/html.js";
import { session } from "./lib/session.js";
import { Store } from "./lib/store.js";
import { App } from "./views/app.js";

async function login() {
  const match = /[#&]token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (match) {
    history.replaceState(null, "", location.pathname); // the token leaves the address bar
    /** @type {string | null} */
    let password = null;
    for (let attempt = 0; attempt < 3; attempt++) {
      const r = await fetch("/api/login", { method: "POST", credentials: "omit", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: match[1], password }) });
      const data = await r.json().catch(() => ({}));
      if (r.ok && data.session) {
        session.set(data.session);
        return true;
      }
      if (!data.needs_password) break; // a used or expired link: the stored session may do
      password = await askPassword();
      if (password === null) break;
    }
  }
  if (!session.get()) return false;
  const probe = await fetch("/api/state", { credentials: "omit", headers: session.headers() });
  return probe.ok;
}

/** @returns {Promise<string | null>} */
function askPassword() {
  return new Promise((resolve) => {
    const box = document.createElement("div");
    document.body.append(box);
    /** @param {string | null} value */
    const done = (value) => {
      render(null, box);
      box.remove();
      resolve(value);
    };
    render(html`<form class="login" onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      done(/** @type {HTMLInputElement} */ (/** @type {HTMLFormElement} */ (e.currentTarget).elements.namedItem("password")).value);
    }}><label for="password">Password</label><input id="password" name="password" type="password" aria-label="Password" autofocus />
      <button type="submit">Log in</button></form>`, box);
  });
}

const root = /** @type {HTMLElement} */ (document.getElementById("app"));
login().then((ok) => {
  if (!ok) {
    render(html`<div class="locked" role="alert">Not logged in. Open the address that <code>pycline ui</code> printed (each works once, for 2 minutes; press Enter where <code>pycline ui</code> runs for a new one).</div>`, root);
    return;
  }
  const store = new Store();
  Object.assign(window, { pycline: store });
  render(html`<${App} store=${store} />`, root);
  store.connect();
});
