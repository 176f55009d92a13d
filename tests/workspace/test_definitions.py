"""`list_code_definition_names`: our own tree-sitter queries, one case per language."""

from __future__ import annotations

from pathlib import Path

import pytest

from pycline.errors import ToolError
from pycline.tools.base import AllowAll, ToolCall
from pycline.tools.definitions import ListCodeDefinitionNamesTool
from pycline.workspace.definitions import NO_DEFINITIONS, format_definitions, list_definitions
from pycline.workspace.ignore import IgnoreRules
from pycline.workspace.tag_queries import EXTENSIONS, LANGUAGES

from .helpers import make_ctx, write

# file name -> (source, the definition lines expected, a line that must not be listed)
SAMPLES: dict[str, tuple[str, list[str], str]] = {
    "a.py": (
        "import os\n\nclass Greeter:\n    def hello(self):\n        return 1\n\n"
        "@decorator\ndef top(x):\n    pass\n",
        ["class Greeter:", "    def hello(self):", "def top(x):"],
        "import os",
    ),
    "a.js": (
        "class Widget {\n  render() { return 1; }\n}\nfunction build() {}\n"
        "const handler = (e) => e;\nconst n = 5;\n",
        ["class Widget {", "  render() { return 1; }", "function build() {}",
         "const handler = (e) => e;"],
        "const n = 5;",
    ),
    "a.ts": (
        "export interface Shape { area(): number }\nexport type Id = string;\nenum Color { Red }\n"
        "export class Circle {\n  size(): number { return 1; }\n}\nconst k = 1;\n"
        "export function make(): Circle { return new Circle(); }\n",
        ["export interface Shape { area(): number }", "export type Id = string;",
         "enum Color { Red }", "export class Circle {", "  size(): number { return 1; }",
         "export function make(): Circle { return new Circle(); }"],
        "const k = 1;",
    ),
    "a.tsx": (
        'import React from "react";\nexport function App() {\n  return <div>hi</div>;\n}\n'
        "export const Button = () => <button />;\n",
        ["export function App() {", "export const Button = () => <button />;"],
        "import React",
    ),
    "a.go": (
        "package main\n\ntype Server struct { port int }\n"
        "func (s *Server) Start() error { return nil }\nfunc main() {}\nvar x = 1\n",
        ["type Server struct { port int }", "func (s *Server) Start() error { return nil }",
         "func main() {}"],
        "var x = 1",
    ),
    "a.rs": (
        "pub struct Point { x: i32 }\ntrait Area { fn area(&self) -> f64; }\n"
        "impl Area for Point {\n    fn area(&self) -> f64 { 0.0 }\n}\nfn main() {}\nuse std::fmt;\n",
        ["pub struct Point { x: i32 }", "trait Area { fn area(&self) -> f64; }",
         "impl Area for Point {", "    fn area(&self) -> f64 { 0.0 }", "fn main() {}"],
        "use std::fmt;",
    ),
    "A.java": (
        "package demo;\npublic class A {\n    public A() {}\n    public void run() {}\n"
        "    private int n;\n}\n",
        ["public class A {", "    public A() {}", "    public void run() {}"],
        "private int n;",
    ),
    "a.c": (
        "#include <stdio.h>\nstruct point { int x; };\nstatic int add(int a, int b) { return a + b; }\n"
        "char *name(void) { return 0; }\nint counter = 0;\n",
        ["struct point { int x; };", "static int add(int a, int b) { return a + b; }",
         "char *name(void) { return 0; }"],
        "int counter = 0;",
    ),
    "a.cpp": (
        "namespace geo {\nclass Shape {\npublic:\n    virtual double area() const;\n};\n"
        "double Shape::area() const { return 0; }\n}\nint global = 1;\n",
        ["namespace geo {", "class Shape {", "    virtual double area() const;",
         "double Shape::area() const { return 0; }"],
        "int global = 1;",
    ),
    "a.cs": (
        "namespace Demo {\n    public class Greeter {\n        public Greeter() {}\n"
        "        public string Hello(string n) { return n; }\n        private int count;\n    }\n}\n",
        ["namespace Demo {", "    public class Greeter {", "        public Greeter() {}",
         "        public string Hello(string n) { return n; }"],
        "private int count;",
    ),
    "a.rb": (
        "require 'json'\nmodule Util\n  class Greeter\n    def hello\n    end\n"
        "    def self.make\n    end\n  end\nend\n",
        ["module Util", "  class Greeter", "    def hello", "    def self.make"],
        "require 'json'",
    ),
    "a.php": (
        "<?php\nnamespace App;\ninterface Shape {}\nclass Circle implements Shape {\n"
        "    public function area() { return 1; }\n}\nfunction helper() {}\n$x = 1;\n",
        ["interface Shape {}", "class Circle implements Shape {",
         "    public function area() { return 1; }", "function helper() {}"],
        "$x = 1;",
    ),
    "a.swift": (
        "import Foundation\nclass Foo {\n    var x: Int = 0\n    init(x: Int) { self.x = x }\n"
        "    func greet() -> String { return \"\" }\n}\nprotocol Shape { func area() -> Double }\n"
        "struct Point { let x: Int }\n",
        ["class Foo {", "    init(x: Int) { self.x = x }",
         '    func greet() -> String { return "" }', "protocol Shape { func area() -> Double }",
         "struct Point { let x: Int }"],
        "var x: Int = 0",
    ),
    "a.kt": (
        "package demo\n\nclass Foo(val x: Int) {\n    fun greet(name: String): String = name\n}\n\n"
        "object Single {\n    fun one() = 1\n}\n\nfun topLevel() {}\n\nval answer = 42\n",
        ["class Foo(val x: Int) {", "    fun greet(name: String): String = name",
         "object Single {", "    fun one() = 1", "fun topLevel() {}"],
        "val answer = 42",
    ),
}  # fmt: skip


def test_every_language_has_a_sample() -> None:
    sampled = {EXTENSIONS[Path(name).suffix.lower()] for name in SAMPLES}
    assert sampled == set(LANGUAGES)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_definitions_per_language(name: str) -> None:
    source, expected, absent = SAMPLES[name]
    language = EXTENSIONS[Path(name).suffix.lower()]
    block = format_definitions(source.encode(), language)
    lines = [ln[1:] for ln in block.splitlines() if ln.startswith("│")]
    assert lines == expected
    assert absent not in block
    assert block.startswith("|----\n") and block.endswith("\n|----")


def test_gaps_are_marked_with_separators() -> None:
    source = b"def a():\n    pass\n\n\ndef b():\n    pass\ndef c():\n    pass\n"
    assert format_definitions(source, "python") == (
        "|----\n│def a():\n|----\n│def b():\n|----\n│def c():\n|----"
    )


def test_folder_report_covers_top_level_files_only(workspace: Path) -> None:
    write(workspace, "main.py", "def main():\n    pass\n")
    write(workspace, "notes.txt", "def not_code():\n")
    write(workspace, "pkg/inner.py", "def inner():\n    pass\n")
    write(workspace, "empty.py", "x = 1\n")
    assert list_definitions(workspace, access=AllowAll()) == "main.py\n|----\n│def main():\n|----\n"


def test_no_definitions(workspace: Path) -> None:
    write(workspace, "readme.md", "# hi\n")
    assert list_definitions(workspace, access=AllowAll()) == NO_DEFINITIONS


def test_blocked_files_are_skipped(workspace: Path) -> None:
    write(workspace, ".clineignore", "secret.py\n")
    write(workspace, "secret.py", "def hidden_algorithm():\n    pass\n")
    write(workspace, "open.py", "def visible():\n    pass\n")
    report = list_definitions(workspace, access=IgnoreRules.load(workspace))
    assert "hidden_algorithm" not in report and "visible" in report


async def test_tool_runs_and_asks_as_a_read(workspace: Path) -> None:
    write(workspace, "src/app.go", "package main\nfunc main() {}\n")
    ctx, rec = make_ctx(workspace)
    call = ToolCall("list_code_definition_names", {"path": "src"})
    result = await ListCodeDefinitionNamesTool().run(call, ctx)
    assert result.text == "app.go\n|----\n│func main() {}\n|----\n"
    assert rec.questions[0][1] == "read"
    assert ListCodeDefinitionNamesTool().summary(call) == "list_code_definition_names for 'src'"


async def test_tool_refuses_missing_and_blocked_paths(workspace: Path) -> None:
    write(workspace, ".clineignore", "vault/\n")
    write(workspace, "vault/a.py", "def x():\n    pass\n")
    ctx, _ = make_ctx(workspace, access=IgnoreRules.load(workspace))
    tool = ListCodeDefinitionNamesTool()
    with pytest.raises(ToolError, match="does not exist"):
        await tool.run(ToolCall("list_code_definition_names", {"path": "nope"}), ctx)
    with pytest.raises(ToolError, match=r"\.clineignore"):
        await tool.run(ToolCall("list_code_definition_names", {"path": "vault"}), ctx)
