"""Tree-sitter queries for `list_code_definition_names`, one per language (our own).

Each pattern captures a definition as `@definition` and the node whose line is shown as `@name`.
Grammars are the `tree-sitter-<language>` wheels; a language is loaded only when a file needs it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    name: str
    module: str  # the grammar wheel's module
    function: str  # the function in it returning the language pointer
    query: str


_PYTHON = """
(class_definition name: (identifier) @name) @definition
(function_definition name: (identifier) @name) @definition
"""

# Shared by JavaScript and TypeScript: functions bound to names, classes, methods.
_JS_COMMON = """
(function_declaration name: (identifier) @name) @definition
(generator_function_declaration name: (identifier) @name) @definition
(method_definition name: (_) @name) @definition
(lexical_declaration
  (variable_declarator name: (identifier) @name
    value: [(arrow_function) (function_expression) (class)])) @definition
(variable_declaration
  (variable_declarator name: (identifier) @name
    value: [(arrow_function) (function_expression) (class)])) @definition
(assignment_expression
  left: (member_expression property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)]) @definition
"""

_JAVASCRIPT = (
    _JS_COMMON
    + """
(class_declaration name: (identifier) @name) @definition
"""
)

_TYPESCRIPT = (
    _JS_COMMON
    + """
(class_declaration name: (type_identifier) @name) @definition
(abstract_class_declaration name: (type_identifier) @name) @definition
(interface_declaration name: (type_identifier) @name) @definition
(type_alias_declaration name: (type_identifier) @name) @definition
(enum_declaration name: (identifier) @name) @definition
(internal_module name: (_) @name) @definition
(module name: (_) @name) @definition
(function_signature name: (identifier) @name) @definition
(abstract_method_signature name: (_) @name) @definition
"""
)

_GO = """
(function_declaration name: (identifier) @name) @definition
(method_declaration name: (field_identifier) @name) @definition
(type_declaration (type_spec name: (type_identifier) @name)) @definition
(type_declaration (type_alias name: (type_identifier) @name)) @definition
"""

_RUST = """
(function_item name: (identifier) @name) @definition
(function_signature_item name: (identifier) @name) @definition
(struct_item name: (type_identifier) @name) @definition
(enum_item name: (type_identifier) @name) @definition
(union_item name: (type_identifier) @name) @definition
(trait_item name: (type_identifier) @name) @definition
(impl_item type: (_) @name) @definition
(mod_item name: (identifier) @name) @definition
(type_item name: (type_identifier) @name) @definition
(macro_definition name: (identifier) @name) @definition
"""

_JAVA = """
(class_declaration name: (identifier) @name) @definition
(interface_declaration name: (identifier) @name) @definition
(enum_declaration name: (identifier) @name) @definition
(record_declaration name: (identifier) @name) @definition
(annotation_type_declaration name: (identifier) @name) @definition
(method_declaration name: (identifier) @name) @definition
(constructor_declaration name: (identifier) @name) @definition
"""

_C = """
(function_declarator declarator: (identifier) @name) @definition
(struct_specifier name: (type_identifier) @name body: (_)) @definition
(union_specifier name: (type_identifier) @name body: (_)) @definition
(enum_specifier name: (type_identifier) @name body: (_)) @definition
(type_definition declarator: (type_identifier) @name) @definition
(preproc_function_def name: (identifier) @name) @definition
"""

_CPP = """
(function_declarator
  declarator: [(identifier) (field_identifier) (qualified_identifier)
               (destructor_name) (operator_name)] @name) @definition
(class_specifier name: (type_identifier) @name body: (_)) @definition
(struct_specifier name: (type_identifier) @name body: (_)) @definition
(union_specifier name: (type_identifier) @name body: (_)) @definition
(enum_specifier name: (type_identifier) @name body: (_)) @definition
(namespace_definition name: (_) @name) @definition
(type_definition declarator: (type_identifier) @name) @definition
(alias_declaration name: (type_identifier) @name) @definition
(preproc_function_def name: (identifier) @name) @definition
"""

_CSHARP = """
(class_declaration name: (identifier) @name) @definition
(interface_declaration name: (identifier) @name) @definition
(struct_declaration name: (identifier) @name) @definition
(enum_declaration name: (identifier) @name) @definition
(record_declaration name: (identifier) @name) @definition
(delegate_declaration name: (identifier) @name) @definition
(method_declaration name: (identifier) @name) @definition
(constructor_declaration name: (identifier) @name) @definition
(namespace_declaration name: (_) @name) @definition
(file_scoped_namespace_declaration name: (_) @name) @definition
"""

_RUBY = """
(class name: (_) @name) @definition
(module name: (_) @name) @definition
(method name: (_) @name) @definition
(singleton_method name: (_) @name) @definition
"""

_PHP = """
(class_declaration name: (name) @name) @definition
(interface_declaration name: (name) @name) @definition
(trait_declaration name: (name) @name) @definition
(enum_declaration name: (name) @name) @definition
(function_definition name: (name) @name) @definition
(method_declaration name: (name) @name) @definition
"""

_SWIFT = """
(class_declaration name: (_) @name) @definition
(protocol_declaration name: (type_identifier) @name) @definition
(function_declaration name: (simple_identifier) @name) @definition
(protocol_function_declaration name: (simple_identifier) @name) @definition
(init_declaration "init" @name) @definition
(typealias_declaration name: (type_identifier) @name) @definition
"""

_KOTLIN = """
(class_declaration name: (identifier) @name) @definition
(object_declaration name: (identifier) @name) @definition
(companion_object) @name @definition
(function_declaration name: (identifier) @name) @definition
(secondary_constructor) @name @definition
(type_alias type: (identifier) @name) @definition
"""

LANGUAGES: dict[str, LanguageSpec] = {
    "python": LanguageSpec("python", "tree_sitter_python", "language", _PYTHON),
    "javascript": LanguageSpec("javascript", "tree_sitter_javascript", "language", _JAVASCRIPT),
    "typescript": LanguageSpec(
        "typescript", "tree_sitter_typescript", "language_typescript", _TYPESCRIPT
    ),
    "tsx": LanguageSpec("tsx", "tree_sitter_typescript", "language_tsx", _TYPESCRIPT),
    "go": LanguageSpec("go", "tree_sitter_go", "language", _GO),
    "rust": LanguageSpec("rust", "tree_sitter_rust", "language", _RUST),
    "java": LanguageSpec("java", "tree_sitter_java", "language", _JAVA),
    "c": LanguageSpec("c", "tree_sitter_c", "language", _C),
    "cpp": LanguageSpec("cpp", "tree_sitter_cpp", "language", _CPP),
    "c_sharp": LanguageSpec("c_sharp", "tree_sitter_c_sharp", "language", _CSHARP),
    "ruby": LanguageSpec("ruby", "tree_sitter_ruby", "language", _RUBY),
    "php": LanguageSpec("php", "tree_sitter_php", "language_php", _PHP),
    "swift": LanguageSpec("swift", "tree_sitter_swift", "language", _SWIFT),
    "kotlin": LanguageSpec("kotlin", "tree_sitter_kotlin", "language", _KOTLIN),
}

EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".cs": "c_sharp",
    ".rb": "ruby",
    ".php": "php",
    ".swift": "swift",
    ".kt": "kotlin",
    ".kts": "kotlin",
}
