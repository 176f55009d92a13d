// Preact with htm: components written as tagged templates, no build step.

import { h, render, Fragment } from "../vendor/preact.js";
import htm from "../vendor/htm.js";

export const html = htm.bind(h);
export { render, Fragment };
