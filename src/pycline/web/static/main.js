// The page's entry: logs in with the token from the address (then the cookie carries on), then
// draws the app and connects to the server.

import { html, render } from "./lib/html.js";
import { Store } from "./lib/store.js";
import { App } from "./views/app.js";

async function login() {
  const match = /[#&]token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (match) {
    history.replaceState(null, "", location.pathname); // the token leaves the address bar
    /** @type {string | null} */
    let password = null;
    for (let attempt = 0; attempt < 3; attempt++) {
      const r = await fetch("/api/login", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: match[1], password }) });
      if (r.ok) return true;
      password = await askPassword();
      if (password === null) break;
    }
  }
  const probe = await fetch("/api/state");
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
    render(html`<div class="locked" role="alert">Not logged in. Open the address that <code>pycline ui</code> printed (it carries the access token).</div>`, root);
    return;
  }
  const store = new Store();
  Object.assign(window, { pycline: store });
  render(html`<${App} store=${store} />`, root);
  store.connect();
});
