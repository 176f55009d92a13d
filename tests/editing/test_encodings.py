"""Legacy-encoded files: detected, matched and saved back in their own encoding."""

from __future__ import annotations

from pathlib import Path

import pytest

from pycline.editing.textfile import decode
from pycline.errors import ToolError
from pycline.tools.edit import ReplaceInFileTool
from pycline.tools.read import ReadFileTool
from tests.editing.helpers import block
from tests.editing.tooling import FakeApprover, call, make_context

REPLACE = ReplaceInFileTool()

RUSSIAN = (
    "# Модуль настроек приложения\n\ndef загрузить(путь):\n"
    '    """Читает файл конфигурации и возвращает словарь."""\n'
    "    with open(путь) as файл:\n        return разобрать(файл.read())\n\n"
    "# Значение по умолчанию для времени ожидания\nТАЙМАУТ = 30\n"
)
JAPANESE = (
    "# 設定ファイルを読み込むモジュール\n\ndef load(path):\n"
    '    """設定ファイルを読み込んで辞書を返します。"""\n'
    "    with open(path) as f:\n        return parse(f.read())\n\n"
    "# タイムアウトの既定値（秒）\nTIMEOUT = 30\n"
)
CHINESE = (
    "# 读取配置文件的模块\n\ndef load(path):\n"
    '    """读取配置文件并返回字典。"""\n'
    "    with open(path) as f:\n        return parse(f.read())\n\n"
    "# 超时的默认值（秒）\nTIMEOUT = 30\n"
)
FRENCH = (
    "# Module de configuration de l'application\n\ndef charger(chemin):\n"
    '    """Lit le fichier de paramètres et renvoie un dictionnaire."""\n'
    "    with open(chemin) as fichier:\n        return analyser(fichier.read())\n\n"
    "# Délai d'attente par défaut, en secondes (très élevé)\nDELAI = 30\n"
)
POLISH = (
    "# Moduł konfiguracji aplikacji\n\ndef wczytaj(ścieżka):\n"
    '    """Czyta plik ustawień i zwraca słownik wartości."""\n'
    "    with open(ścieżka) as plik:\n        return przetwórz(plik.read())\n\n"
    "# Domyślny czas oczekiwania w sekundach (źródło: dokumentacja)\nLIMIT = 30\n"
)

CASES = [
    (
        "cp1251",
        RUSSIAN,
        "# Значение по умолчанию для времени ожидания",
        "# Время ожидания, секунды",
    ),
    ("koi8_r", RUSSIAN, "ТАЙМАУТ = 30", "ТАЙМАУТ = 60  # минута"),
    ("shift_jis", JAPANESE, "# タイムアウトの既定値（秒）", "# 待ち時間の上限（秒）"),
    ("gb18030", CHINESE, "# 超时的默认值（秒）", "# 等待时间上限（秒）"),
    ("latin-1", FRENCH, "DELAI = 30", "DELAI = 45  # prolongé"),
    ("cp1250", POLISH, "LIMIT = 30", "LIMIT = 45  # zwiększony"),
]


@pytest.mark.parametrize(("encoding", "text", "search", "replace"), CASES)
def test_a_legacy_file_decodes_to_its_text_and_round_trips_byte_exact(
    encoding: str, text: str, search: str, replace: str
) -> None:
    data = text.encode(encoding)
    file = decode(data)
    assert file.text == text
    assert file.encode(file.text) == data


@pytest.mark.parametrize(("encoding", "text", "search", "replace"), CASES)
async def test_an_edit_to_a_legacy_file_is_saved_in_its_own_encoding(
    workspace: Path, encoding: str, text: str, search: str, replace: str
) -> None:
    target = workspace / "settings.py"
    target.write_bytes(text.encode(encoding))
    result = await REPLACE.run(
        call("replace_in_file", path="settings.py", diff=block(search, replace)),
        make_context(workspace),
    )
    assert not result.is_error, result.text
    assert target.read_bytes() == text.replace(search, replace).encode(encoding)


async def test_read_file_shows_a_legacy_file_as_the_edit_tools_see_it(workspace: Path) -> None:
    (workspace / "settings.py").write_bytes(RUSSIAN.encode("cp1251"))
    result = await ReadFileTool().run(
        call("read_file", path="settings.py"), make_context(workspace)
    )
    assert "Читает файл конфигурации" in result.text


async def test_a_replacement_the_encoding_cannot_hold_is_refused_with_nothing_written(
    workspace: Path,
) -> None:
    target = workspace / "settings.py"
    data = RUSSIAN.encode("cp1251")
    target.write_bytes(data)
    approver = FakeApprover()
    with pytest.raises(ToolError) as caught:
        await REPLACE.run(
            call(
                "replace_in_file",
                path="settings.py",
                diff=block("ТАЙМАУТ = 30", "ТАЙМАУТ = 30  # 秒"),
            ),
            make_context(workspace, approver),
        )
    assert "cp1251" in str(caught.value)
    assert target.read_bytes() == data
    assert approver.asked == []
