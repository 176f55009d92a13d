export { default } from "highlight.js";
