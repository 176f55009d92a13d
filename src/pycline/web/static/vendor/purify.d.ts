export { default } from "dompurify";
export * from "dompurify";
