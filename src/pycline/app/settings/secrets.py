"""API keys: in the OS keyring when one is usable, else in `PYCLINE_HOME/secrets.json` (0600).

Keys are only ever read from here to build a provider. This module never prints or logs a key,
and `SecretStore` shows no key in its repr. On a headless Linux there is usually no keyring
backend (keyring picks its "fail" backend); then the file is used. `PYTHON_KEYRING_BACKEND`
(keyring's own variable) can force a backend, e.g. `keyring.backends.fail.Keyring` for the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pycline.errors import ConfigError
from pycline.storage.atomic import atomic_write_json, locked
from pycline.workspace.confined import MAX_SETTINGS_BYTES, read_json

if TYPE_CHECKING:
    from keyring.backend import KeyringBackend

KEYRING_SERVICE = "pycline"
Location = Literal["keyring", "file"]


def secrets_path(home: Path) -> Path:
    return home / "secrets.json"


def _entry(provider: str) -> str:
    return f"{provider}.apiKey"


def usable_keyring() -> KeyringBackend | None:
    """The OS keyring backend, or None when keyring is missing or only has a fail/null backend."""
    try:
        import keyring
        from keyring.backends import fail, null
        from keyring.errors import KeyringError
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
    except (KeyringError, ImportError, ValueError):  # a broken PYTHON_KEYRING_BACKEND
        return None
    if isinstance(backend, fail.Keyring | null.Keyring) or backend.priority <= 0:
        return None
    return backend


def check_key(key: str) -> str:
    """A key as stored: one line, no spaces (a pasted key often carries a trailing newline)."""
    cleaned = key.strip()
    if not cleaned:
        raise ConfigError("The API key is empty.")
    if any(ch.isspace() or not ch.isprintable() for ch in cleaned):
        raise ConfigError("An API key is one word: no spaces, line breaks or control characters.")
    return cleaned


class SecretStore:
    def __init__(self, home: Path, *, keyring_backend: KeyringBackend | None = None) -> None:
        self.path = secrets_path(home)
        self._backend = keyring_backend
        self._looked_up = keyring_backend is not None

    def __repr__(self) -> str:
        return f"SecretStore(path={str(self.path)!r})"

    @property
    def backend(self) -> KeyringBackend | None:
        if not self._looked_up:
            self._backend = usable_keyring()
            self._looked_up = True
        return self._backend

    def _read_file(self) -> dict[str, object]:
        try:
            data = read_json(self.path, MAX_SETTINGS_BYTES)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            # The message names the file only: the decoder's message may quote the content.
            raise ConfigError(f"Cannot read {self.path} ({type(exc).__name__}).") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{self.path} must hold a JSON object.")
        return data

    def _write_file(self, data: dict[str, object]) -> None:
        atomic_write_json(self.path, data, mode=0o600)

    def _keyring_get(self, provider: str) -> str | None:
        backend = self.backend
        if backend is None:
            return None
        from keyring.errors import KeyringError

        try:
            return backend.get_password(KEYRING_SERVICE, _entry(provider))
        except KeyringError:  # locked or unreachable: the file may still hold a key
            return None

    def get(self, provider: str) -> str | None:
        key = self._keyring_get(provider)
        if key:
            return key
        value = self._read_file().get(_entry(provider))
        return value if isinstance(value, str) and value else None

    def location(self, provider: str) -> Location | None:
        if self._keyring_get(provider):
            return "keyring"
        return "file" if _entry(provider) in self._read_file() else None

    def set(self, provider: str, key: str) -> Location:
        """Store `key` for `provider`; returns where it went."""
        key = check_key(key)
        backend = self.backend
        if backend is not None:
            from keyring.errors import KeyringError

            try:
                backend.set_password(KEYRING_SERVICE, _entry(provider), key)
            except KeyringError:
                pass  # e.g. a locked keyring that cannot prompt here: use the file instead
            else:
                self._drop_from_file(provider)  # no stale copy outside the keyring
                return "keyring"
        with locked(self.path):
            data = self._read_file()
            data[_entry(provider)] = key
            self._write_file(data)
        return "file"

    def delete(self, provider: str) -> bool:
        removed = False
        backend = self.backend
        if backend is not None and self._keyring_get(provider):
            from keyring.errors import KeyringError

            try:
                backend.delete_password(KEYRING_SERVICE, _entry(provider))
                removed = True
            except KeyringError:
                pass  # reported below as "nothing removed" when the file had none either
        return self._drop_from_file(provider) or removed

    def _drop_from_file(self, provider: str) -> bool:
        with locked(self.path):
            data = self._read_file()
            if _entry(provider) not in data:
                return False
            del data[_entry(provider)]
            self._write_file(data)
        return True


class SecretVault:
    """Free-form secrets (an MCP server's OAuth tokens, as JSON) under their own names, in the
    same keyring-or-0600-file store as API keys. Satisfies `pycline.mcp.oauth.TokenVault`."""

    def __init__(self, store: SecretStore) -> None:
        self.store = store

    def __repr__(self) -> str:
        return f"SecretVault({self.store!r})"

    def load(self, key: str) -> str | None:
        backend = self.store.backend
        if backend is not None:
            from keyring.errors import KeyringError

            try:
                value = backend.get_password(KEYRING_SERVICE, key)
            except KeyringError:
                value = None
            if value:
                return value
        found = self.store._read_file().get(key)
        return found if isinstance(found, str) and found else None

    def save(self, key: str, value: str) -> None:
        backend = self.store.backend
        if backend is not None:
            from keyring.errors import KeyringError

            try:
                backend.set_password(KEYRING_SERVICE, key, value)
            except KeyringError:
                pass
            else:
                self._drop(key)
                return
        with locked(self.store.path):
            data = self.store._read_file()
            data[key] = value
            self.store._write_file(data)

    def delete(self, key: str) -> bool:
        removed = False
        backend = self.store.backend
        if backend is not None:
            from keyring.errors import KeyringError

            try:
                if backend.get_password(KEYRING_SERVICE, key):
                    backend.delete_password(KEYRING_SERVICE, key)
                    removed = True
            except KeyringError:
                pass
        return self._drop(key) or removed

    def _drop(self, key: str) -> bool:
        with locked(self.store.path):
            data = self.store._read_file()
            if key not in data:
                return False
            del data[key]
            self.store._write_file(data)
        return True
