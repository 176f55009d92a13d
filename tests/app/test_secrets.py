"""API keys: the OS keyring when usable, else a 0600 file; never shown."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError, PasswordSetError

from pycline.app.settings.secrets import KEYRING_SERVICE, SecretStore, usable_keyring
from pycline.errors import ConfigError


class MemoryKeyring(KeyringBackend):
    """A real keyring backend that keeps passwords in a dict (a desktop keyring stand-in)."""

    priority = 1  # type: ignore[assignment]

    def __init__(self, *, broken: bool = False) -> None:
        super().__init__()
        self.items: dict[tuple[str, str], str] = {}
        self.broken = broken

    def get_password(self, service: str, username: str) -> str | None:
        return self.items.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        if self.broken:
            raise PasswordSetError("the keyring is locked")
        self.items[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.items:
            raise PasswordDeleteError("not found")
        del self.items[(service, username)]


@pytest.fixture
def system_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def test_without_a_keyring_backend_the_key_goes_to_a_private_file(isolated_home: Path) -> None:
    assert usable_keyring() is None  # keyring's "fail" backend, as on a headless Linux
    store = SecretStore(isolated_home)
    assert store.set("openai", "sk-file-123\n") == "file"
    assert store.get("openai") == "sk-file-123"
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert json.loads(store.path.read_text("utf-8")) == {"openai.apiKey": "sk-file-123"}
    assert store.location("openai") == "file" and store.location("anthropic") is None


def test_a_usable_keyring_is_preferred_and_leaves_no_copy_in_the_file(
    isolated_home: Path, system_keyring: MemoryKeyring
) -> None:
    store = SecretStore(isolated_home)
    store.path.write_text(json.dumps({"openai.apiKey": "sk-old"}), encoding="utf-8")
    assert usable_keyring() is system_keyring
    assert store.set("openai", "sk-ring-456") == "keyring"
    assert system_keyring.items == {(KEYRING_SERVICE, "openai.apiKey"): "sk-ring-456"}
    assert "sk-old" not in store.path.read_text("utf-8")
    assert store.get("openai") == "sk-ring-456" and store.location("openai") == "keyring"
    assert store.delete("openai") and store.get("openai") is None
    assert not store.delete("openai")


def test_a_keyring_that_refuses_falls_back_to_the_file(isolated_home: Path) -> None:
    store = SecretStore(isolated_home, keyring_backend=MemoryKeyring(broken=True))
    assert store.set("anthropic", "sk-ant-789") == "file"
    assert store.get("anthropic") == "sk-ant-789"


def test_a_key_saved_before_the_keyring_existed_is_still_found(
    isolated_home: Path, system_keyring: MemoryKeyring
) -> None:
    (isolated_home / "secrets.json").write_text(
        json.dumps({"anthropic.apiKey": "sk-legacy"}), encoding="utf-8"
    )
    assert SecretStore(isolated_home).get("anthropic") == "sk-legacy"


@pytest.mark.parametrize("bad", ["", "   ", "sk one", "sk-\x00x", "a\nb"])
def test_a_key_must_be_one_printable_word(isolated_home: Path, bad: str) -> None:
    with pytest.raises(ConfigError):
        SecretStore(isolated_home).set("openai", bad)
    assert not (isolated_home / "secrets.json").exists()


def test_a_corrupt_secrets_file_is_an_error_that_does_not_quote_it(isolated_home: Path) -> None:
    (isolated_home / "secrets.json").write_text('{"openai.apiKey": "sk-half', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        SecretStore(isolated_home).get("openai")
    assert "sk-half" not in str(caught.value)


def test_the_store_shows_no_key(isolated_home: Path) -> None:
    store = SecretStore(isolated_home)
    store.set("openai", "sk-hidden-000")
    assert "sk-hidden-000" not in repr(store) and "sk-hidden-000" not in str(store)
