// Copies the page's libraries from node_modules (the versions pinned in package.json and
// package-lock.json) into src/pycline/web/static/vendor, with their licences. Run after changing
// a version:  npm ci --prefix tools/web && node tools/web/vendor.mjs
//
// Files that are one ES module upstream are copied as they are; preact/hooks has its import of
// "preact" pointed at the copy beside it; the highlighter (core and the languages below) and the
// virtual list (several modules upstream) are joined into one module each by esbuild.

import { build } from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, "node_modules");
const out = join(here, "..", "..", "src", "pycline", "web", "static", "vendor");

// Languages models write most; anything else is shown as plain text.
const LANGUAGES = [
  "bash", "c", "cpp", "csharp", "css", "diff", "dockerfile", "go", "ini", "java", "javascript",
  "json", "kotlin", "makefile", "markdown", "php", "plaintext", "python", "ruby", "rust", "scss",
  "shell", "sql", "swift", "typescript", "xml", "yaml",
];

const version = (name) => JSON.parse(readFileSync(join(modules, name, "package.json"), "utf8")).version;

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "licenses"), { recursive: true });

const copy = (from, to, edit = (s) => s) =>
  writeFileSync(join(out, to), edit(readFileSync(join(modules, from), "utf8")));

copy("preact/dist/preact.mjs", "preact.js");
copy("preact/hooks/dist/hooks.mjs", "hooks.js", (s) => s.replaceAll('from"preact"', 'from"./preact.js"'));
copy("htm/dist/htm.mjs", "htm.js");
copy("markdown-it/dist/browser/markdown-it.esm.min.mjs", "markdown-it.js");
copy("dompurify/dist/purify.es.mjs", "purify.js");

const entry = [
  'import hljs from "@highlightjs/cdn-assets/es/core.min.js";',
  ...LANGUAGES.map((l, i) => `import l${i} from "@highlightjs/cdn-assets/es/languages/${l}.min.js";`),
  ...LANGUAGES.map((l, i) => `hljs.registerLanguage(${JSON.stringify(l)}, l${i});`),
  "export default hljs;",
].join("\n");
const common = { bundle: true, minify: true, format: "esm", legalComments: "inline", logLevel: "warning", absWorkingDir: here };
await build({ ...common, stdin: { contents: entry, resolveDir: here }, outfile: join(out, "highlight.js") });
await build({ ...common, entryPoints: [join(modules, "@tanstack/virtual-core/dist/esm/index.js")], outfile: join(out, "virtual-core.js") });

// The type checker reads each copy's types from the package it came from (tsconfig.json's paths).
const TYPES = {
  "preact.js": 'export * from "preact";\n',
  "hooks.js": 'export * from "preact/hooks";\n',
  "htm.js": 'export { default } from "htm";\n',
  "markdown-it.js": 'export { default } from "markdown-it";\nexport * from "markdown-it";\n',
  "purify.js": 'export { default } from "dompurify";\nexport * from "dompurify";\n',
  "highlight.js": 'export { default } from "highlight.js";\n',
  "virtual-core.js": 'export * from "@tanstack/virtual-core";\n',
};
for (const [file, text] of Object.entries(TYPES)) writeFileSync(join(out, file.replace(/\.js$/, ".d.ts")), text);

const LICENSES = {
  preact: ["preact/LICENSE"],
  htm: ["htm/LICENSE"],
  "markdown-it": ["markdown-it/LICENSE"],
  dompurify: ["dompurify/LICENSE", "dompurify/LICENSE-MPL"],
  "@highlightjs/cdn-assets": ["@highlightjs/cdn-assets/LICENSE"],
  "@tanstack/virtual-core": ["@tanstack/virtual-core/LICENSE"],
};
const versions = {};
for (const [name, files] of Object.entries(LICENSES)) {
  versions[name] = version(name);
  for (const [i, file] of files.entries()) {
    const to = `${name.replace("/", "__")}${i ? `.${file.split("/").pop()}` : ""}.txt`;
    try {
      copyFileSync(join(modules, file), join(out, "licenses", to));
    } catch {
      throw new Error(`${name} ships no ${file}: find its licence text before vendoring it`);
    }
  }
}
writeFileSync(join(out, "versions.json"), JSON.stringify({ languages: LANGUAGES, packages: versions }, null, 2) + "\n");
console.log(`vendored into ${out}:`, versions);
