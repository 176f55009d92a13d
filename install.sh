#!/bin/sh
# Installs pycline from this folder as a command, the way pipx or `uv tool install` would: its own
# virtual environment in a private folder, and only the `pycline` command linked into
# ~/.local/bin. Nothing else of that environment (its python3, pip, ...) goes on your PATH.
# Run it again after `git pull` to upgrade.
#
#   sh install.sh [EXTRA ...]      e.g. `sh install.sh gemini bedrock` for those providers
#
# Environment: PYTHON (default python3, 3.11 or newer), PYCLINE_VENV (default
# ~/.local/share/pycline-agent/venv), PYCLINE_BIN_DIR (default ~/.local/bin),
# PYCLINE_BASH_COMPLETION_LOADERS (where bash-completion's loader may be; default: the usual places).
set -eu

cd "$(dirname "$0")"
PYTHON=${PYTHON:-python3}
DATA_HOME=${XDG_DATA_HOME:-$HOME/.local/share}
VENV=${PYCLINE_VENV:-$DATA_HOME/pycline-agent/venv}
BIN_DIR=${PYCLINE_BIN_DIR:-$HOME/.local/bin}

say() { printf '%s\n' "$*"; }
fail() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

[ -f pyproject.toml ] && [ -d src/pycline ] || fail "run it from a clone of pycline"
command -v "$PYTHON" >/dev/null 2>&1 || fail "$PYTHON not found: install Python 3.11 or newer (or set PYTHON=/path/to/python3.11)"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
  fail "pycline needs Python 3.11 or newer; $PYTHON is $("$PYTHON" -c 'import platform; print(platform.python_version())'). Set PYTHON=python3.12 (or another)."
"$PYTHON" -c 'import venv, ensurepip' 2>/dev/null ||
  fail "$PYTHON cannot make virtual environments: install its venv module (Debian/Ubuntu: sudo apt-get install python3-venv)"

# A venv left by an older Python (or half made) is made again.
if [ -x "$VENV/bin/python" ] && ! "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
  say "Making pycline's own Python environment in $VENV"
  mkdir -p "$(dirname "$VENV")"
  "$PYTHON" -m venv "$VENV"
fi

TARGET=.
if [ $# -gt 0 ]; then
  TARGET=".[$(printf '%s' "$*" | tr ' ' ',')]"
fi
say "Installing pycline and its dependencies (the first time takes a minute or two)"
# pip builds the package inside the clone (build/, src/*.egg-info): what was not there before goes.
made=""
for scratch in build src/pycline_agent.egg-info; do
  [ -e "$scratch" ] || made="$made $scratch"
done
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$TARGET"
for scratch in $made; do
  rm -rf "$scratch"
done

mkdir -p "$BIN_DIR"
ln -sf "$VENV/bin/pycline" "$BIN_DIR/pycline"

# Tab completion where the shells load it from on their own (bash: only with the bash-completion
# package, which many systems lack; then say how to get it).
COMPLETIONS="$DATA_HOME/bash-completion/completions"
mkdir -p "$COMPLETIONS"
"$VENV/bin/pycline" completion bash >"$COMPLETIONS/pycline"
bash_completion_loader=""
for loader in ${PYCLINE_BASH_COMPLETION_LOADERS:-/usr/share/bash-completion/bash_completion /etc/bash_completion /usr/local/etc/profile.d/bash_completion.sh /opt/homebrew/etc/profile.d/bash_completion.sh}; do
  [ -f "$loader" ] && bash_completion_loader=$loader
done
if [ -z "$bash_completion_loader" ]; then
  say "Tab completion for bash is in $COMPLETIONS/pycline, but bash loads it only with the"
  say "bash-completion package, which is not installed (Debian/Ubuntu: sudo apt-get install"
  say "bash-completion; macOS: brew install bash-completion@2); or add this line to ~/.bashrc:"
  say "    eval \"\$(pycline completion bash)\""
fi
if command -v fish >/dev/null 2>&1; then
  mkdir -p "${XDG_CONFIG_HOME:-$HOME/.config}/fish/completions"
  "$VENV/bin/pycline" completion fish >"${XDG_CONFIG_HOME:-$HOME/.config}/fish/completions/pycline.fish"
fi

say "$("$VENV/bin/pycline" --version) installed: $BIN_DIR/pycline"
case ":$PATH:" in
  *":$BIN_DIR:"*)
    ;;
  *)
    case "${SHELL:-}" in
      */fish) how="fish_add_path $BIN_DIR" ;;
      */zsh) how="echo 'export PATH=\"$BIN_DIR:\$PATH\"' >> ~/.zshrc" ;;
      *) how="echo 'export PATH=\"$BIN_DIR:\$PATH\"' >> ~/.bashrc" ;;
    esac
    say ""
    say "$BIN_DIR is not on your PATH yet. Add it (then open a new terminal):"
    say "    $how"
    say "Until then, run it as $BIN_DIR/pycline."
    ;;
esac
say ""
say "Next: cd into a project and run \`pycline\` (the first run asks which model to use);"
say "\`pycline doctor\` checks the model, sandbox, browser and language servers."
