"""`pycline completion bash|zsh|fish`: Tab completion scripts, generated from the argparse parsers.

(`cli/completion.py` is something else: Tab completion inside pycline's own prompt.)

The command tree (subcommands, their options, the values an option takes) is written into one
POSIX shell function, `_pycline_candidates`, that prints what may come next after the words typed
so far: `cmd<TAB>word<TAB>help`, `opt<TAB>word<TAB>help`, `val<TAB>word`, or `files`. Bash and zsh
source it; fish runs it with `sh`. Each shell only adds its own few lines of glue, so all three
complete the same things, and nothing starts Python on a Tab press.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

SHELLS = ("bash", "zsh", "fish")
_HELP_WIDTH = 60


@dataclass(slots=True)
class Option:
    flags: tuple[str, ...]
    help: str
    takes_value: bool
    choices: tuple[str, ...] = ()


@dataclass(slots=True)
class Node:
    """One command level: `pycline`, `pycline mcp`, `pycline mcp add`."""

    path: str  # space-separated words after `pycline`; "" for the top
    commands: dict[str, str] = field(default_factory=dict)  # word -> help
    options: list[Option] = field(default_factory=list)
    files: bool = False  # takes free positional arguments (paths, ids, task text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pycline completion",
        description="Print a Tab completion script for your shell. bash: "
        "`pycline completion bash > ~/.local/share/bash-completion/completions/pycline`; "
        "zsh: `pycline completion zsh > ~/.zfunc/_pycline` with ~/.zfunc in fpath before "
        "compinit (or `source <(pycline completion zsh)` in ~/.zshrc); fish: "
        "`pycline completion fish > ~/.config/fish/completions/pycline.fish`.",
    )
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    return parser


def run_completion(
    argv: list[str], commands: Mapping[str, Callable[[], argparse.ArgumentParser]]
) -> int:
    """`commands`: every subcommand's parser (`pycline.main.command_parsers`)."""
    ns = build_parser().parse_args(argv)
    sys.stdout.write(script(ns.shell, commands))
    return 0


def script(shell: str, commands: Mapping[str, Callable[[], argparse.ArgumentParser]]) -> str:
    from pycline.cli.main import build_parser as top

    nodes = command_tree(top(), commands)
    engine = candidates_function(nodes)
    if shell == "bash":
        return engine + _BASH
    if shell == "zsh":
        return "#compdef pycline\n" + engine + _ZSH
    if shell == "fish":
        return _fish(engine)
    raise ValueError(f"unknown shell {shell!r}")


# --- the command tree ------------------------------------------------------------------------


def command_tree(
    top: argparse.ArgumentParser, commands: Mapping[str, Callable[[], argparse.ArgumentParser]]
) -> list[Node]:
    """Every level of the command line, the top first."""
    root = _node("", top)
    root.files = True  # `pycline TASK…`
    nodes = [root]
    for name, build in commands.items():
        parser = build()
        root.commands[name] = _summary(parser.description or "")
        nodes.extend(_walk(name, parser))
    return nodes


def _walk(path: str, parser: argparse.ArgumentParser) -> list[Node]:
    node = _node(path, parser)
    found = [node]
    positionals = [a for a in parser._actions if not a.option_strings]
    if (
        positionals
        and positionals[0].choices
        and not isinstance(positionals[0], argparse._SubParsersAction)
    ):
        # After `pycline rules enable`: the same options, then the rest of the arguments.
        for word in node.commands:
            found.append(Node(f"{path} {word}", {}, list(node.options), len(positionals) > 1))
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for word, child in action.choices.items():
                node.commands[word] = _summary(helps.get(word) or child.description or "")
                found.extend(_walk(f"{path} {word}", child))
    return found


def _node(path: str, parser: argparse.ArgumentParser) -> Node:
    node = Node(path)
    first_positional = True
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            first_positional = False
            continue
        if action.option_strings:
            if action.help == argparse.SUPPRESS:
                continue
            choices = tuple(str(c) for c in action.choices) if action.choices else ()
            node.options.append(
                Option(
                    tuple(action.option_strings),
                    _summary(action.help or ""),
                    action.nargs != 0,
                    choices,
                )
            )
            continue
        if first_positional and action.choices:
            # A first argument chosen from a list (`pycline hooks list|trust`) reads as a command.
            node.commands.update({str(c): "" for c in action.choices})
        else:
            node.files = True
        first_positional = False
    return node


def _summary(text: str) -> str:
    """A help text's gist, short enough for one line of a completion menu."""
    text = " ".join(text.replace("%%", "%").split())
    text = re.sub(r"\s*\([^()]*\)", "", text)
    text = re.split(r"(?<!e\.g)(?<!i\.e)[.;] ", text, maxsplit=1)[0].rstrip(".")
    if len(text) > _HELP_WIDTH:
        text = text[: text.rfind(" ", 0, _HELP_WIDTH)] + "…"
    return text


# --- the shared engine -----------------------------------------------------------------------


def _q(text: str) -> str:
    """`text` as one single-quoted shell word."""
    return "'" + text.replace("'", "'\\''") + "'"


def candidates_function(nodes: list[Node]) -> str:
    steps: list[str] = []  # case arms: "path:word" -> what it means
    offers: list[str] = []  # case arms: path -> what it prints
    values: list[str] = []  # case arms: "path:option" -> its values
    for node in nodes:
        for word in node.commands:
            child = f"{node.path} {word}".strip()
            if any(n.path == child for n in nodes):
                steps.append(f"      {_q(f'{node.path}:{word}')}) _pc_path={_q(child)} ;;")
        for option in node.options:
            if not option.takes_value:
                continue
            arm = "|".join(_q(f"{node.path}:{flag}") for flag in option.flags)
            steps.append(f"      {arm}) _pc_wants=$_pc_word ;;")
            if option.choices:
                listed = " ".join(_q(c) for c in option.choices)
                values.append(f"      {arm}) printf 'val\\t%s\\n' {listed} ;;")
        lines = [f"cmd\t{word}\t{help_}" for word, help_ in node.commands.items()]
        lines += [f"opt\t{flag}\t{o.help}" for o in node.options for flag in o.flags]
        if node.files:
            lines.append("files")
        printed = " ".join(_q(line) for line in lines)
        offers.append(f"    {_q(node.path)}) printf '%s\\n' {printed} ;;")
    return _ENGINE.format(
        steps="\n".join(steps), values="\n".join(values), offers="\n".join(offers)
    )


_ENGINE = """\
# pycline's command line, as generated by `pycline completion`.
_pycline_candidates() {{
  # The words typed after `pycline`, before the one being completed. (Names are prefixed:
  # zsh ties `path` to PATH, and this runs in the user's shell.)
  local _pc_path='' _pc_wants='' _pc_word
  for _pc_word in "$@"; do
    if [ -n "$_pc_wants" ]; then
      _pc_wants=''
      continue
    fi
    case "$_pc_path:$_pc_word" in
{steps}
    esac
  done
  if [ -n "$_pc_wants" ]; then
    case "$_pc_path:$_pc_wants" in
{values}
      *) echo files ;;
    esac
    return 0
  fi
  case "$_pc_path" in
{offers}
  esac
}}
"""

_BASH = r"""
_pycline() {
  local cur=${COMP_WORDS[COMP_CWORD]} line kind word rest words=() options=() values=() files=''
  local IFS=$'\n'
  for line in $(_pycline_candidates "${COMP_WORDS[@]:1:COMP_CWORD-1}"); do
    IFS=$'\t' read -r kind word rest <<<"$line"
    case $kind in
      cmd) words+=("$word") ;;
      opt) options+=("$word") ;;
      val) values+=("$word") ;;
      files) files=1 ;;
    esac
  done
  if [ ${#values[@]} -gt 0 ]; then
    COMPREPLY=($(compgen -W "${values[*]}" -- "$cur"))
  elif [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "${options[*]}" -- "$cur"))
  elif [ ${#words[@]} -gt 0 ]; then
    COMPREPLY=($(compgen -W "${words[*]}" -- "$cur"))
  elif [ -n "$files" ]; then
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _pycline pycline
"""

_ZSH = r"""
_pycline() {
  local line kind word help
  local -a cmds opts vals
  local files=0
  for line in "${(@f)$(_pycline_candidates "${(@)words[2,CURRENT-1]}")}"; do
    kind=${line%%$'\t'*}
    word=${${line#*$'\t'}%%$'\t'*}
    help=${line##*$'\t'}
    case $kind in
      cmd) cmds+=("${word//:/\\:}:$help") ;;
      opt) opts+=("${word//:/\\:}:$help") ;;
      val) vals+=("$word") ;;
      files) files=1 ;;
    esac
  done
  if (( ${#vals} )); then
    compadd -a vals
  elif [[ $PREFIX == -* ]]; then
    _describe -t options option opts
  elif (( ${#cmds} )); then
    _describe -t commands command cmds
  elif (( files )); then
    _files
  fi
}
if [ "$funcstack[1]" = "_pycline" ]; then
  _pycline "$@"
else
  compdef _pycline pycline
fi
"""


def _fish(engine: str) -> str:
    quoted = "'" + engine.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return f"""\
# pycline's command line, as generated by `pycline completion fish`.
set -g __pycline_engine {quoted}

function __pycline_complete
    set -l typed (commandline -opc)
    set -l current (commandline -ct)
    set -e typed[1]
    set -l found (sh -c "$__pycline_engine"'
_pycline_candidates "$@"' sh $typed)
    set -l cmds
    set -l opts
    set -l vals
    set -l files 0
    for line in $found
        set -l part (string split \\t -- $line)
        switch $part[1]
            case cmd
                set -a cmds (string join \\t -- $part[2..3])
            case opt
                set -a opts (string join \\t -- $part[2..3])
            case val
                set -a vals $part[2]
            case files
                set files 1
        end
    end
    if test (count $vals) -gt 0
        printf '%s\\n' $vals
    else if string match -q -- '-*' $current
        printf '%s\\n' $opts
    else if test (count $cmds) -gt 0
        printf '%s\\n' $cmds
    else if test $files = 1
        __fish_complete_path $current
    end
end

complete -c pycline -f -a '(__pycline_complete)'
"""
