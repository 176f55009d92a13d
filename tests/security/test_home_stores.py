"""Credential stores inside the home folders a sandboxed command sees are hidden by rule: each
store the allowed toolchains document is planted, and a command reads none of them, while the
toolchains' own files (a tokenizer, Python's `token.py`, a tool on PATH) stay readable."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pycline.terminal.home_scan import is_credential_name
from pycline.terminal.sandbox import bwrap_path
from tests.security.attack import COMPLETE, command, results, scripted

# Each toolchain's documented credential store, inside a folder the sandbox shows.
STORES = [
    ".local/share/uv/credentials/credentials.toml",  # uv auth login
    ".julia/servers/pkg.julialang.org/auth.toml",  # Julia's package server token
    ".cache/huggingface/token",
    ".cache/huggingface/stored_tokens",
    ".nvm/versions/node/v20.11.0/etc/npmrc",  # npm's global config (`npm config set -g`)
    ".volta/tools/image/node/20.11.0/etc/npmrc",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".gradle/gradle.properties",
    ".gem/credentials",
    ".pub-cache/credentials.json",
    ".stack/upload/credentials.json",
    ".config/pypoetry/auth.toml",
    ".composer/auth.json",
    ".config/composer/auth.json",
    ".nuget/NuGet/NuGet.Config",
    ".sbt/.credentials",
    ".sbt/1.0/credentials.sbt",
    ".ivy2/.credentials",
    ".deno/deno_auth_tokens.json",
    ".bun/install/.npmrc",
    ".local/share/pnpm/.npmrc",
    ".conda/.netrc",
    # The rule, not a list: names nobody wrote down.
    ".cache/some-cli/auth_token.json",
    ".cache/other-tool/Secrets/keys.json",
    ".local/share/mise/oauth-creds.yaml",
    ".cache/chromium-tool/Cookies",
    ".local/share/uv/keyring/pass.db",
]

# What the toolchains need of the same folders.
KEPT = [
    ".cache/huggingface/hub/models--x/snapshots/1/tokenizer.json",
    ".cache/huggingface/hub/models--x/snapshots/1/tokenizer_config.json",
    ".pyenv/versions/3.12.1/lib/python3.12/token.py",
    ".pyenv/versions/3.12.1/lib/python3.12/secrets.py",
    ".pyenv/versions/3.12.1/lib/python3.12/site-packages/google/auth/credentials.py",
    ".local/share/uv/python/cpython-3.12/lib/python3.12/site-packages/keyring/core.py",
    ".cargo/registry/src/index/oauth2-4.4.2/src/token.rs",
    ".julia/packages/HTTP/abc/src/auth.jl",
    ".m2/repository/org/x/auth/1.0/auth-1.0.pom",
    ".cargo/config.toml",
    ".npm/_cacache/index-v5/aa/bb",
]


def _marker(rel: str) -> str:
    return "STORE-" + rel.strip(".").replace("/", "~") + "-44e"


def test_every_documented_store_in_a_shown_folder_is_hidden_and_the_toolchain_stays(
    isolated_home: Path, workspace: Path, outside_tmp: Path
) -> None:
    assert bwrap_path() is not None, "bubblewrap (bwrap) must be installed for this test"
    home = outside_tmp / "home"
    for rel in [*STORES, *KEPT]:
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_marker(rel) + "\n", encoding="utf-8")
    tool = home / ".cargo" / "bin" / "cargo-tool"
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\necho CARGO-TOOL-RAN\n", encoding="utf-8")
    tool.chmod(0o755)
    # One command each (a sandbox each costs a process start): every file, then a search.
    names = " ".join(f"~/{rel}" for rel in [*STORES, *KEPT])
    reads = [f"for f in {names}; do cat $f; done 2>&1", "grep -r STORE- ~ | head -100; cargo-tool"]
    proc = scripted(
        workspace,
        isolated_home,
        [command(line) for line in reads] + [COMPLETE],
        env={
            "HOME": str(home),
            "PATH": f"{home}/.cargo/bin{os.pathsep}{os.environ['PATH']}",
            "NVM_DIR": str(home / ".nvm"),
            "VOLTA_HOME": str(home / ".volta"),
            "BUN_INSTALL": str(home / ".bun"),
            "DENO_INSTALL": str(home / ".deno"),
        },
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    seen = results(isolated_home)
    assert [rel for rel in STORES if _marker(rel) in seen] == []
    assert [rel for rel in KEPT if _marker(rel) not in seen] == []
    assert "CARGO-TOOL-RAN" in seen


@pytest.mark.parametrize(
    ("name", "folder", "hidden"),
    [
        ("credentials.toml", False, True),
        ("auth.toml", False, True),
        ("token", False, True),
        ("stored_tokens", False, True),
        ("npmrc", False, True),
        ("id_ed25519", False, True),
        ("credential", True, True),
        ("keyrings", True, True),
        ("tokenizer.json", False, False),
        ("token.py", False, False),
        ("authors.txt", False, False),
        ("oauth2", True, False),
        ("path.txt", False, False),
    ],
)
def test_the_credential_rule_by_name(name: str, folder: bool, hidden: bool) -> None:
    assert is_credential_name(name, folder=folder) is hidden
