export { default } from "markdown-it";
export * from "markdown-it";
