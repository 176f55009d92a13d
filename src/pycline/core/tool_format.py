"""Which tool-call format a task speaks: native API tool calls or XML in the text.

`toolCallFormat`: "native" always, "xml" never, "auto" where the model's catalogue entry says it
calls tools well natively. A server that rejects a request with tools (a 4xx before any native
reply succeeded, e.g. a local server whose model has no tool support) makes the task fall back to
XML for good, with a notice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from pycline.errors import ProviderError, ProviderErrorKind
from pycline.providers.base import ModelInfo

ToolCallFormat: TypeAlias = Literal["auto", "native", "xml"]


@dataclass(slots=True)
class ToolFormat:
    setting: ToolCallFormat = "auto"
    fell_back: bool = False
    _confirmed: bool = False  # a native request went through: later errors are not about tools

    def native(self, model: ModelInfo) -> bool:
        if self.fell_back:
            return False
        match self.setting:
            case "native":
                return True
            case "xml":
                return False
            case "auto":
                return model.supports_native_tools

    def succeeded(self) -> None:
        self._confirmed = True

    def should_fall_back(self, error: ProviderError, *, native: bool) -> bool:
        """True (and from now on XML) when this failure looks like a refusal of tools."""
        if not native or self._confirmed or error.kind is not ProviderErrorKind.BAD_REQUEST:
            return False
        self.fell_back = True
        return True

    def notice(self, error: ProviderError) -> str:
        return (
            f"The server refused the request with native tool calls ({error}); this task "
            "continues with XML tool calls."
        )
