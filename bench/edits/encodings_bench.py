"""Legacy-encoded files through replace_in_file, on disk: byte-exact round trips and refusals.

Each file is written in its encoding; an edit changes one line (in the file's own script); the
saved bytes must equal the intended text encoded the same way. Then an edit with a character
the encoding lacks must be refused with the file's bytes unchanged. The baseline decodes as
UTF-8 with replacement characters and saves UTF-8, as an editor with no detection does.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from pycline.errors import ToolError
from pycline.tools.base import Approval, ToolCall, ToolContext
from pycline.workspace.paths import Workspace

TEXTS = {
    "ru": (
        "# Модуль настроек приложения",
        '"""Читает файл конфигурации и возвращает словарь."""',
        "# Значение по умолчанию для времени ожидания",
        "# Повторить запрос, если сервер не ответил",
        "# Сохранить результат в журнал событий",
    ),
    "ja": (
        "# 設定ファイルを読み込むモジュール",
        '"""設定ファイルを読み込んで辞書を返します。"""',
        "# タイムアウトの既定値（秒）",
        "# サーバーが応答しない場合は再試行する",
        "# 結果をイベントログに保存する",
    ),
    "zh": (
        "# 读取配置文件的模块",
        '"""读取配置文件并返回字典。"""',
        "# 超时的默认值（秒）",
        "# 如果服务器没有响应，则重试请求",
        "# 将结果保存到事件日志",
    ),
    "fr": (
        "# Module de configuration de l'application",
        '"""Lit le fichier de paramètres et renvoie un dictionnaire."""',
        "# Délai d'attente par défaut, en secondes (très élevé)",
        "# Réessayer la requête si le serveur ne répond pas",
        "# Enregistrer le résultat dans le journal des événements",
    ),
    "pl": (
        "# Moduł konfiguracji aplikacji",
        '"""Czyta plik ustawień i zwraca słownik wartości."""',
        "# Domyślny czas oczekiwania w sekundach (źródło: dokumentacja)",
        "# Ponów żądanie, jeśli serwer nie odpowiada",
        "# Zapisz wynik w dzienniku zdarzeń",
    ),
    "ko": (
        "# 설정 파일을 읽는 모듈",
        '"""설정 파일을 읽고 사전을 반환합니다."""',
        "# 기본 시간 제한 (초)",
        "# 서버가 응답하지 않으면 요청을 다시 시도합니다",
        "# 결과를 이벤트 로그에 저장합니다",
    ),
}
ENCODINGS = (
    ("cp1251", "ru"),
    ("koi8_r", "ru"),
    ("shift_jis", "ja"),
    ("euc_jp", "ja"),
    ("gb18030", "zh"),
    ("big5", "zh"),
    ("latin-1", "fr"),
    ("cp1252", "fr"),
    ("cp1250", "pl"),
    ("euc_kr", "ko"),
)
TRADITIONAL = str.maketrans(
    "读取配置文件的块并返回字典超时默认值秒如果服务器没有响应则重试请求将结保存到事件日志",
    "讀取配置文件的塊並返回字典超時默認值秒如果服務器沒有響應則重試請求將結保存到事件日誌",
)


def _file(language: str, encoding: str) -> str:
    lines = list(TEXTS[language])
    if encoding == "big5":
        lines = [line.translate(TRADITIONAL) for line in lines]
    code = ["", "def load(path):", "    with open(path) as f:", "        return parse(f.read())"]
    return "\n".join([lines[0], *code, "", *lines[1:], "TIMEOUT = 30", ""])


def _context(root: Path) -> ToolContext:
    async def approve(*args: object, **kwargs: object) -> Approval:
        return Approval(True)

    async def ask(question: object) -> object:
        raise AssertionError("not asked")

    return ToolContext(
        workspace=Workspace.at(root),
        approve=approve,  # type: ignore[arg-type]
        say_fn=lambda event: None,
        ask_fn=ask,  # type: ignore[arg-type]
        model_family="claude",
    )


def _holds(encoding: str, char: str) -> bool:
    try:
        char.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


def _diff(search: str, replace: str) -> str:
    return f"------- SEARCH\n{search}\n=======\n{replace}\n+++++++ REPLACE"


async def _run() -> None:
    from pycline.tools.edit import ReplaceInFileTool

    tool = ReplaceInFileTool()
    exact = baseline_exact = refused_clean = total = refusals = 0
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ctx = _context(root)
        for encoding, language in ENCODINGS:
            text = _file(language, encoding)
            lines = text.split("\n")
            for index in (0, 6, 7, 8, 9):
                target = lines[index]
                edited = target + " (2)" if index else target + " v2"
                path = root / f"{encoding}-{index}.py"
                path.write_bytes(text.encode(encoding))
                total += 1
                call = ToolCall(
                    "replace_in_file", {"path": path.name, "diff": _diff(target, edited)}
                )
                result = await tool.run(call, ctx)
                intended = text.replace(target, edited, 1).encode(encoding)
                if not result.is_error and path.read_bytes() == intended:
                    exact += 1
                else:
                    failures.append(f"{encoding} line {index + 1}")
                naive = text.encode(encoding).decode("utf-8", errors="replace")
                baseline_exact += naive.replace(target, edited, 1).encode() == intended
            # A character the encoding does not have: refused, 0 bytes changed. (GB18030
            # encodes all of Unicode, so it has nothing to refuse.)
            if _holds(encoding, "⏱"):
                continue
            path = root / f"{encoding}-emoji.py"
            data = text.encode(encoding)
            path.write_bytes(data)
            refusals += 1
            call = ToolCall(
                "replace_in_file",
                {"path": path.name, "diff": _diff("TIMEOUT = 30", "TIMEOUT = 30  # ⏱")},
            )
            try:
                result = await tool.run(call, ctx)
                refused = result.is_error
            except ToolError:
                refused = True
            refused_clean += refused and path.read_bytes() == data
    print(f"\nLegacy encodings ({len(ENCODINGS)} encodings, replace_in_file on disk):")
    print(
        f"  edits saved byte-exact in the file's encoding: {exact}/{total} (no detection: {baseline_exact}/{total})"
    )
    print(f"  unencodable replacements refused, 0 bytes changed: {refused_clean}/{refusals}")
    for failure in failures:
        print(f"  not exact: {failure}")


def run() -> None:
    asyncio.run(_run())
