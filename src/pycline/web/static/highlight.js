// Code highlighting by a single-pass tokenizer (comments, strings, numbers, keywords): enough to
// read code at a glance, linear in the text, and it only ever creates text nodes in spans.

const KEYWORDS = new Set(
  (
    "and as assert async await break case catch class const continue def default del do elif else " +
    "enum except export extends false False final finally fn for from func function go if impl " +
    "import in interface is lambda let match mod mut new nil None not null or package pass pub " +
    "raise return self static struct super switch this throw true True try type typeof use var " +
    "void while with yield"
  ).split(" ")
);
const HASH_COMMENT = new Set(["py", "python", "sh", "bash", "shell", "zsh", "rb", "ruby", "yaml", "yml", "toml", "r", "perl", "dockerfile", "make", "makefile"]);
const TOKEN = /(\/\/[^\n]*|\/\*[\s\S]*?\*\/)|(#[^\n]*)|("""[\s\S]*?"""|'''[\s\S]*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`)|(\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?\b)|([A-Za-z_]\w*)/g;

export function highlight(target, code, lang) {
  const hashes = HASH_COMMENT.has((lang || "").toLowerCase());
  const slashes = !hashes || lang === "php";
  if (code.length > 200_000 || lang === "diff") {
    if (lang === "diff") return diffLines(target, code);
    target.textContent = code;
    return;
  }
  let last = 0;
  for (const m of code.matchAll(TOKEN)) {
    let cls = null;
    if (m[1] && slashes) cls = "tok-comment";
    else if (m[2] && hashes) cls = "tok-comment";
    else if (m[3]) cls = "tok-string";
    else if (m[4]) cls = "tok-number";
    else if (m[5] && KEYWORDS.has(m[5])) cls = "tok-keyword";
    if (!cls) continue;
    if (m.index > last) target.append(code.slice(last, m.index));
    const span = document.createElement("span");
    span.className = cls;
    span.textContent = m[0];
    target.append(span);
    last = m.index + m[0].length;
  }
  if (last < code.length) target.append(code.slice(last));
}

export function diffLines(target, diff) {
  for (const line of diff.split("\n")) {
    const span = document.createElement("span");
    if (line.startsWith("+") && !line.startsWith("+++")) span.className = "diff-add";
    else if (line.startsWith("-") && !line.startsWith("---")) span.className = "diff-del";
    else if (line.startsWith("@@")) span.className = "diff-hunk";
    span.textContent = line + "\n";
    target.append(span);
  }
}

export function diffCounts(diff) {
  let added = 0;
  let removed = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+") && !line.startsWith("+++")) added++;
    else if (line.startsWith("-") && !line.startsWith("---")) removed++;
  }
  return { added, removed };
}
