"""What of the user's home a sandboxed command sees: an allow list, not a list of secrets.

Developers keep credentials for dozens of services in their home (`~/.claude`, `~/.codex`,
`~/.vault-token`, `~/.pgpass`, `~/.m2/settings.xml`, shell histories, browser profiles, …) and
no list of them is ever complete. So the home is replaced by an empty folder, and only what
builds and tests need comes back, read-only: toolchains and package caches, the folders on the
command's PATH and those its environment names (an active virtualenv or conda, nvm, pyenv, …),
git's and pip's configuration. What inside those holds credentials stays hidden: the stores named
here (`~/.cargo/credentials.toml`, `~/.gradle/gradle.properties`), and whatever `home_scan` finds
by rule (sockets, FIFOs, files named for credentials); every known credential file stays hidden
when the home is shown anyway (a workspace that is the home itself).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

# Shown read-only when present: toolchains, their package caches, and build tools' settings.
# Shell start-up files are not here on purpose: `export OPENAI_API_KEY=…` lives in them.
VISIBLE = (
    ".cargo",
    ".rustup",
    ".pyenv",
    ".nvm",
    ".volta",
    ".fnm",
    ".local/share/fnm",
    ".bun",
    ".deno",
    ".sdkman",
    ".jdks",
    ".m2",
    ".gradle",
    ".ivy2",
    ".sbt",
    "go",
    ".local/bin",
    ".local/lib",
    ".local/pipx",
    ".local/share/pipx",
    ".local/share/uv",
    ".local/share/virtualenvs",
    ".local/share/pnpm",
    ".local/share/mise",
    ".virtualenvs",
    ".conda",
    ".condarc",
    "miniconda3",
    "anaconda3",
    "miniforge3",
    "mambaforge",
    ".npm",
    ".yarn",
    ".pnpm-store",
    ".cache",
    ".rbenv",
    ".gem",
    ".opam",
    ".ghcup",
    ".cabal",
    ".stack",
    ".elan",
    ".dotnet",
    ".nuget",
    ".julia",
    ".asdf",
    ".tool-versions",
    ".goenv",
    ".nodenv",
    ".jenv",
    ".tfenv",
    ".pub-cache",
    ".composer",
    ".config/composer",
    ".nix-profile",
    ".gitconfig",
    ".gitignore_global",
    ".config/git",
    ".config/pip",
    ".pip",
    ".config/uv",
    ".config/pypoetry",
    ".config/ruff",
    ".config/flake8",
    ".config/pycodestyle",
    ".pylintrc",
    ".pydistutils.cfg",
    ".editorconfig",
    ".clang-format",
)

# Environment variables naming a toolchain or environment folder (shown when it is in the home).
TOOLCHAIN_VARIABLES = (
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "PYENV_ROOT",
    "NVM_DIR",
    "RUSTUP_HOME",
    "CARGO_HOME",
    "GOPATH",
    "GOROOT",
    "JAVA_HOME",
    "SDKMAN_DIR",
    "VOLTA_HOME",
    "BUN_INSTALL",
    "DENO_INSTALL",
    "PNPM_HOME",
    "ASDF_DIR",
    "ASDF_DATA_DIR",
    "MISE_DATA_DIR",
    "GEM_HOME",
    "PIPX_HOME",
    "POETRY_HOME",
    "UV_TOOL_DIR",
)

# Credential files and folders, relative to the home. Hidden even inside a folder shown above,
# and when the home is visible for another reason (the workspace is the home, or contains it).
SECRETS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".oci",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pypirc",
    ".pgpass",
    ".my.cnf",
    ".mylogin.cnf",
    ".s3cfg",
    ".boto",
    ".vault-token",
    ".databrickscfg",
    ".terraform.d",
    ".terraformrc",
    ".pulumi",
    ".kaggle",
    ".huggingface",
    ".cache/huggingface/token",
    ".cache/huggingface/stored_tokens",
    ".claude",
    ".claude.json",
    ".codex",
    ".cline",
    ".gemini",
    ".config/github-copilot",
    ".config/gh",
    ".config/hub",
    ".config/gcloud",
    ".config/rclone",
    ".config/op",
    ".config/doctl",
    ".config/configstore",
    ".config/netlify",
    ".config/heroku",
    ".config/sops",
    ".config/age",
    ".config/Code",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".mozilla",
    ".thunderbird",
    ".password-store",
    ".local/share/keyrings",
    ".local/share/python_keyring",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".gradle/gradle.properties",
    ".ivy2/.credentials",
    ".sbt/.credentials",
    ".gem/credentials",
    ".bundle",
    ".nuget/NuGet",
    ".pub-cache/credentials.json",
    ".composer/auth.json",
    ".config/composer/auth.json",
    ".config/pypoetry/auth.toml",
    ".Xauthority",
    ".ICEauthority",
    ".bash_history",
    ".zsh_history",
    ".histfile",
    ".local/share/fish/fish_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".rediscli_history",
    ".lesshst",
    ".viminfo",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".config/fish",
    ".env",
)

# Folders too broad to show whole because one PATH entry lies inside them.
_TOO_BROAD = (".local", ".local/share", ".config", ".cache")


def visible_paths(home: Path, env: Mapping[str, str], extra: Iterable[str] = ()) -> list[Path]:
    """The paths inside `home` a command sees (read-only), existing ones only, outermost first.

    `env` is the command's environment: the folders on its PATH, and those its toolchain
    variables name, are shown when they lie in the home; `extra` are the user's own additions
    (relative to the home, or absolute inside it).
    """
    # Plain strings: this runs before every command, and pathlib is slow at it.
    base = os.path.normpath(home)
    found: set[str] = {os.path.normpath(os.path.join(base, rel)) for rel in (*VISIBLE, *extra)}
    broad = {base, *(os.path.join(base, b) for b in _TOO_BROAD)}
    for entry in env.get("PATH", "").split(os.pathsep):
        if entry and os.path.isabs(entry):
            entry = os.path.normpath(entry)
            parent, name = os.path.split(entry)
            candidate = parent if name == "bin" else entry
            # A tool's folder (`~/opt/node` for `~/opt/node/bin`), unless that is the home or
            # one of its catch-all folders.
            found.add(entry if candidate in broad else candidate)
    for name in TOOLCHAIN_VARIABLES:
        value = env.get(name)
        if value and os.path.isabs(value):
            found.add(os.path.normpath(value))
    inside = sorted(
        (p for p in found if is_under(p, base) and p != base and os.path.lexists(p)),
        key=lambda p: p.count("/"),
    )
    # A folder already shown covers what is inside it.
    kept: list[str] = []
    for path in inside:
        if not any(is_under(path, k) for k in kept):
            kept.append(path)
    return [Path(p) for p in kept]


def secret_paths(home: Path) -> list[Path]:
    return [home / rel for rel in SECRETS]


def is_under(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or inside it (normalised absolute strings)."""
    return path == folder or path.startswith(folder if folder.endswith("/") else folder + "/")
