"""Edit scenarios other agents' SEARCH/REPLACE engines are tested on, written out for ours.

Each scenario is one the test suites of peer projects (Roo Code's multi-search-replace strategy,
aider's edit blocks, Cline's own) exercise: indentation written with spaces for a file indented
with tabs, the two mixed (tab stops of eight, steps of four, as Emacs and GNU code indent), blocks
copied without their leading whitespace, deletions, line-number prefixes, CRLF, typographic
quotes. The files and edits are our own; the intended result is what those engines produce (and
what a person would write). `run.py` reports how many pycline applies as intended, refuses, or
applies wrongly.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Scenario:
    id: str
    group: str  # "tabs", "mixed", "indentation", "other"
    original: str
    search: str
    replace: str
    intended: str

    @property
    def diff(self) -> str:
        replace = f"{self.replace}\n" if self.replace else ""
        return f"------- SEARCH\n{self.search}\n=======\n{replace}+++++++ REPLACE"


def _s(id: str, group: str, original: str, search: str, replace: str, intended: str) -> Scenario:
    return Scenario(id, group, original, search, replace, intended)


# A tab-indented file (Go, C, Makefiles, many JS projects).
GO = 'func handle(w Writer, r *Request) {\n\tif r.Method != "GET" {\n\t\tw.Status(405)\n\t\treturn\n\t}\n\tw.Write(body)\n}\n'
# Tab stops of eight, indentation steps of four: a tab stands for two levels.
GNU = (
    "int run(struct job *j)\n{\n    if (j->ready) {\n\tstart(j);\n\tif (j->slow) {\n"
    "\t    wait(j);\n\t}\n    }\n    return 0;\n}\n"
)
PY_TABS = "class Pool:\n\tdef take(self):\n\t\tif self.free:\n\t\t\treturn self.free.pop()\n\t\treturn None\n"

SCENARIOS: tuple[Scenario, ...] = (
    # --- spaces written for tabs -------------------------------------------------------------
    _s("tabs-4sp-same-depth-add-nested", "tabs", GO,
       "    if r.Method != \"GET\" {\n        w.Status(405)\n        return\n    }",
       "    if r.Method != \"GET\" {\n        if r.Method == \"HEAD\" {\n            w.Status(200)\n            return\n        }\n        w.Status(405)\n        return\n    }",
       GO.replace("\t\tw.Status(405)\n", "\t\tif r.Method == \"HEAD\" {\n\t\t\tw.Status(200)\n\t\t\treturn\n\t\t}\n\t\tw.Status(405)\n")),
    _s("tabs-flush-search-add-line", "tabs", GO,
       "if r.Method != \"GET\" {\n    w.Status(405)\n    return\n}",
       "if r.Method != \"GET\" {\n    w.Header(\"Allow\", \"GET\")\n    w.Status(405)\n    return\n}",
       GO.replace("\t\tw.Status(405)\n", "\t\tw.Header(\"Allow\", \"GET\")\n\t\tw.Status(405)\n")),
    _s("tabs-8sp-per-level-change", "tabs", GO,
       "        if r.Method != \"GET\" {\n                w.Status(405)",
       "        if r.Method != \"POST\" {\n                w.Status(405)",
       GO.replace("!= \"GET\"", "!= \"POST\"")),
    _s("tabs-8sp-per-level-add-nested", "tabs", GO,
       "        w.Write(body)",
       "        if body != nil {\n                w.Write(body)\n        }",
       GO.replace("\tw.Write(body)\n", "\tif body != nil {\n\t\tw.Write(body)\n\t}\n")),
    _s("tabs-2sp-per-level", "tabs", GO,
       "  if r.Method != \"GET\" {\n    w.Status(405)",
       "  if r.Method != \"GET\" {\n    w.Status(400)",
       GO.replace("405", "400")),
    _s("tabs-wrap-in-block", "tabs", PY_TABS,
       "        if self.free:\n            return self.free.pop()",
       "        with self.lock:\n            if self.free:\n                return self.free.pop()",
       PY_TABS.replace("\t\tif self.free:\n\t\t\treturn self.free.pop()\n",
                       "\t\twith self.lock:\n\t\t\tif self.free:\n\t\t\t\treturn self.free.pop()\n")),
    _s("tabs-dedent-line", "tabs", PY_TABS,
       "            return self.free.pop()\n        return None",
       "            return self.free.pop()\n    # fall through\n        return None",
       PY_TABS.replace("\t\treturn None\n", "\t# fall through\n\t\treturn None\n")),
    _s("tabs-search-less-indented-add", "tabs", "\tfunction check() {\n\t\treturn ok;\n\t}\n",
       "function check() {\n\treturn ok;\n}",
       "function check() {\n\t// validated upstream\n\treturn ok;\n}",
       "\tfunction check() {\n\t\t// validated upstream\n\t\treturn ok;\n\t}\n"),
    _s("tabs-exact-add-lines", "tabs", "\tfunction check() {\n\t\treturn ok;\n\t}\n",
       "\tfunction check() {\n\t\treturn ok;\n\t}",
       "\tfunction check() {\n\t\t// one\n\t\t// two\n\t\treturn ok;\n\t}",
       "\tfunction check() {\n\t\t// one\n\t\t// two\n\t\treturn ok;\n\t}\n"),
    _s("makefile-recipe-spaces", "tabs", "build:\n\tgo build ./...\n\tgo vet ./...\n",
       "    go build ./...",
       "    go build -trimpath ./...",
       "build:\n\tgo build -trimpath ./...\n\tgo vet ./...\n"),
    _s("makefile-add-recipe-line", "tabs", "build:\n\tgo build ./...\n\ntest:\n\tgo test ./...\n",
       "test:\n    go test ./...",
       "test:\n    go test ./...\n    go test -race ./...",
       "build:\n\tgo build ./...\n\ntest:\n\tgo test ./...\n\tgo test -race ./...\n"),
    _s("spaces-file-tab-search", "tabs", "def f():\n    if a:\n        b()\n",
       "\tif a:\n\t\tb()",
       "\tif a:\n\t\tb()\n\t\tc()",
       "def f():\n    if a:\n        b()\n        c()\n"),
    # --- tabs and spaces mixed (tab = 8 columns, step = 4) ------------------------------------
    _s("mixed-exact-copy", "mixed", GNU,
       "\tif (j->slow) {\n\t    wait(j);\n\t}",
       "\tif (j->slow) {\n\t    wait(j);\n\t    log_slow(j);\n\t}",
       GNU.replace("\t    wait(j);\n", "\t    wait(j);\n\t    log_slow(j);\n")),
    _s("mixed-spaces-at-8-change", "mixed", GNU,
       "        if (j->slow) {\n            wait(j);",
       "        if (j->slow > 2) {\n            wait(j);",
       GNU.replace("if (j->slow)", "if (j->slow > 2)")),
    _s("mixed-spaces-at-8-add-body", "mixed", GNU,
       "        if (j->slow) {\n            wait(j);\n        }",
       "        if (j->slow) {\n            wait(j);\n            notify(j);\n        }",
       GNU.replace("\t    wait(j);\n", "\t    wait(j);\n\t    notify(j);\n")),
    _s("mixed-spaces-at-8-add-nested", "mixed", GNU,
       "        start(j);",
       "        start(j);\n        if (j->traced) {\n            trace(j);\n        }",
       GNU.replace("\tstart(j);\n", "\tstart(j);\n\tif (j->traced) {\n\t    trace(j);\n\t}\n")),
    _s("mixed-spaces-at-8-add-deeper", "mixed", GNU,
       "        if (j->slow) {\n            wait(j);\n        }",
       "        if (j->slow) {\n            wait(j);\n            if (j->late) {\n                cancel(j);\n            }\n        }",
       GNU.replace("\t    wait(j);\n", "\t    wait(j);\n\t    if (j->late) {\n\t\tcancel(j);\n\t    }\n")),
    _s("mixed-whole-function-spaces", "mixed", GNU,
       "    if (j->ready) {\n        start(j);\n        if (j->slow) {\n            wait(j);\n        }\n    }",
       "    if (j->ready) {\n        start(j);\n        if (j->slow) {\n            wait(j);\n            retry(j);\n        }\n    }",
       GNU.replace("\t    wait(j);\n", "\t    wait(j);\n\t    retry(j);\n")),
    _s("mixed-tab-and-spaces-copied", "mixed",
       "\tclass Box {\n\t    constructor() {\n\t\tthis.size = 0;\n\t    }\n\t}\n",
       "\tclass Box {\n\t    constructor() {\n\t\tthis.size = 0;\n\t    }\n\t}",
       "\tclass Box {\n\t    constructor() {\n\t\tthis.size = 1;\n\t    }\n\t}",
       "\tclass Box {\n\t    constructor() {\n\t\tthis.size = 1;\n\t    }\n\t}\n"),
    _s("mixed-spaces-add-in-method", "mixed",
       "\tclass Box {\n\t    constructor() {\n\t\tthis.size = 0;\n\t    }\n\t}\n",
       "        class Box {\n            constructor() {\n                this.size = 0;\n            }",
       "        class Box {\n            constructor() {\n                this.size = 0;\n                this.open = false;\n            }",
       "\tclass Box {\n\t    constructor() {\n\t\tthis.size = 0;\n\t\tthis.open = false;\n\t    }\n\t}\n"),
    # --- leading whitespace the model got wrong (spaces only) ---------------------------------
    _s("flush-python-add", "indentation",
       "class Cart:\n    def total(self):\n        s = 0\n        for i in self.items:\n            s += i.price\n        return s\n",
       "for i in self.items:\n    s += i.price",
       "for i in self.items:\n    if i.active:\n        s += i.price",
       "class Cart:\n    def total(self):\n        s = 0\n        for i in self.items:\n            if i.active:\n                s += i.price\n        return s\n"),
    _s("over-indented-search", "indentation",
       "def f():\n    x = 1\n    return x\n",
       "        x = 1\n        return x",
       "        x = 2\n        return x",
       "def f():\n    x = 2\n    return x\n"),
    _s("two-space-model-four-space-file", "indentation",
       "def f():\n    if a:\n        b()\n    c()\n",
       "  if a:\n    b()\n  c()",
       "  if a:\n    b()\n    b2()\n  c()",
       "def f():\n    if a:\n        b()\n        b2()\n    c()\n"),
    _s("blank-line-inside-flush", "indentation",
       "def f():\n    a = 1\n\n    b = 2\n",
       "a = 1\n\nb = 2",
       "a = 1\n\nb = 3",
       "def f():\n    a = 1\n\n    b = 3\n"),
    _s("negative-relative-indent", "indentation",
       "class E {\n    run() {\n        if (on) {\n            go();\n            stop();\n        }\n    }\n}\n",
       "            go();\n            stop();",
       "        go();\n        stop();",
       "class E {\n    run() {\n        if (on) {\n        go();\n        stop();\n        }\n    }\n}\n"),
    _s("wrap-in-try", "indentation",
       "class T {\n    m() {\n        if (ok) {\n            log(\"t\");\n        }\n    }\n}\n",
       "    m() {\n        if (ok) {\n            log(\"t\");\n        }\n    }",
       "    m() {\n        try {\n            if (ok) {\n                log(\"t\");\n            }\n        } catch (e) {\n            warn(e);\n        }\n    }",
       "class T {\n    m() {\n        try {\n            if (ok) {\n                log(\"t\");\n            }\n        } catch (e) {\n            warn(e);\n        }\n    }\n}\n"),
    # --- other peers' staples ------------------------------------------------------------------
    _s("delete-lines", "other",
       "fn main() {\n    let a = 1;\n    // remove me\n    let b = 2;\n}\n",
       "    // remove me", "",
       "fn main() {\n    let a = 1;\n    let b = 2;\n}\n"),
    _s("delete-nested-block", "other",
       "def f():\n    if x:\n        # a\n        y()\n        # b\n    return 1\n",
       "        # a\n        y()\n        # b", "",
       "def f():\n    if x:\n    return 1\n"),
    _s("crlf-file", "other",
       "a = 1\r\nb = 2\r\nc = 3\r\n",
       "b = 2", "b = 20",
       "a = 1\r\nb = 20\r\nc = 3\r\n"),
    _s("line-number-prefixes", "other",
       "alpha\nbeta\ngamma\n",
       "2 | beta", "2 | BETA",
       "alpha\nBETA\ngamma\n"),
    _s("smart-quotes-in-search", "other",
       "msg = \"don't stop\"\nend = 1\n",
       "msg = \"don\u2019t stop\"", "msg = \"do not stop\"",
       "msg = \"do not stop\"\nend = 1\n"),
    _s("trailing-whitespace-in-file", "other",
       "x = 1   \ny = 2\n",
       "x = 1\ny = 2", "x = 1\ny = 3",
       "x = 1   \ny = 3\n"),
    _s("indented-blank-lines-kept", "other",
       "function t() {\n    const x = 1;\n    \n    if (x) {\n        go();\n    }\n}\n",
       "    const x = 1;\n    \n    if (x) {",
       "    const x = 1;\n    \n    // check\n    if (x) {",
       "function t() {\n    const x = 1;\n    \n    // check\n    if (x) {\n        go();\n    }\n}\n"),
    _s("inner-whitespace-runs", "other",
       "function sum(a, b) {\n    return a + b;\n}\n",
       "function   sum(a,   b)    {\n    return    a + b;\n}",
       "function sum(a, b) {\n    return a + b + 1;\n}",
       "function sum(a, b) {\n    return a + b + 1;\n}\n"),
    _s("no-break-space-in-file", "other",
       "x\u00a0= 1\ny = 2\n", "x = 1", "x = 3", "x = 3\ny = 2\n"),
    _s("start-line-header", "other",
       "alpha\nbeta\ngamma\n", ":start_line:2\n-------\nbeta", "BETA", "alpha\nBETA\ngamma\n"),
    _s("start-line-header-places-repeat", "other",
       "f()\ng()\nf()\n", ":start_line:3\n:end_line:3\n-------\nf()", "h()", "f()\ng()\nh()\n"),
    _s("blank-lines-around-search", "other",
       "x = 1\ny = 2\nz = 3\n", "\ny = 2\n", "\ny = 20\n", "x = 1\ny = 20\nz = 3\n"),
    _s("middle-line-left-out", "other",
       "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n",
       "def f():\n    a = 1\n    c = 3\n    return a",
       "def f():\n    a = 1\n    c = 4\n    return a",
       "def f():\n    a = 1\n    b = 2\n    c = 4\n    return a\n"),
    # Peers apply these; pycline refuses them on purpose: the SEARCH matches two places (they
    # take the first), or a line the edit replaces reads differently in the file (they overwrite
    # whatever is there).
    _s("repeated-search-first-taken", "refused on purpose",
       "f()\ng()\nf()\n", "f()", "h()", "h()\ng()\nf()\n"),
    _s("stale-line-overwritten", "refused on purpose",
       "function get() {\n    const results = fetch();\n    return results.filter(Boolean);\n}\n",
       "function get() {\n    const result = fetch();\n    return results.filter(Boolean);\n}",
       "function get() {\n    const data = fetch();\n    return data.filter(Boolean);\n}",
       "function get() {\n    const data = fetch();\n    return data.filter(Boolean);\n}\n"),
)  # fmt: skip
