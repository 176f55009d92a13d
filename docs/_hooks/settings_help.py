"""What each setting does, for the generated settings reference (docs/reference/settings.md).

Keys are as written in settings.json; a nested object's keys are dotted (`autoApprove.editFiles`).
The documentation build fails (mkdocs --strict) when a setting has no line here, so a new
setting is documented when it is added.
"""

DESCRIPTIONS: dict[str, str] = {
    "provider": "The provider: `openai` (any OpenAI-compatible server), `anthropic`, `openrouter`, "
    "`deepseek`, `groq`, `together`, `xai`, `mistral`, `ollama`, `lmstudio`, `vllm`, `llamacpp`, "
    "`gemini`, `bedrock`, `vertex`, `scripted`. Set by `pycline setup`.",
    "model": "The model id, as the provider names it (`claude-sonnet-4-6`, `gpt-4o`, `llama3.1`).",
    "baseUrl": "The API's base URL, for OpenAI-compatible servers and proxies; saved with its "
    "provider and never used for another one.",
    "reasoningEffort": "OpenAI-style reasoning effort for models that take one.",
    "thinkingBudget": "Tokens the model may think before answering (Anthropic, Gemini).",
    "modelInfo.contextWindow": "The model's context window in tokens, over the catalogue and what "
    "the server reports (`pycline doctor` says whether it is known).",
    "modelInfo.maxTokens": "The most tokens one reply may have.",
    "modelInfo.inputPrice": "USD per million input tokens, for the cost shown and the caps.",
    "modelInfo.outputPrice": "USD per million output tokens.",
    "modelInfo.cacheWritesPrice": "USD per million tokens written to the prompt cache.",
    "modelInfo.cacheReadsPrice": "USD per million tokens read from the prompt cache.",
    "modelInfo.supportsImages": "Whether the model takes images (browser screenshots, pasted "
    "images).",
    "modelInfo.supportsPromptCache": "Whether requests mark prompt-cache breakpoints.",
    "modelInfo.supportsReasoning": "Whether the model streams its reasoning.",
    "modelInfo.supportsTemperature": "Whether requests may set a temperature.",
    "planMode": "Plan mode's own model: an object with `provider`, `model`, `baseUrl`, "
    "`reasoningEffort`, `thinkingBudget`, `modelInfo`; unset, Plan uses Act's model.",
    "profiles": "Named model choices (each like the top level, with its own `planMode`), used with "
    "`--profile NAME`.",
    "activeProfile": "The profile used when no `--profile` is given.",
    "fallbackModels": "Models a task moves to, in order, when its model keeps failing (after the "
    "retries of a rate limit, an overload or a server error) or its context window overflows "
    "(the next larger one): each `[PROVIDER/]MODEL` or a profile's label. Per profile too; "
    "never a model not listed. See [Work left alone](../unattended.md).",
    "autoApprove.readFiles": "Read files inside the project without asking.",
    "autoApprove.readFilesExternally": "Read files outside the project without asking.",
    "autoApprove.editFiles": "Save edits inside the project without asking (the diff is still "
    "shown).",
    "autoApprove.editFilesExternally": "Save edits outside the project without asking.",
    "autoApprove.executeSafeCommands": "Run commands the model marks safe "
    "(`requires_approval=false`) without asking.",
    "autoApprove.executeAllCommands": "Run every command without asking.",
    "autoApprove.useBrowser": "Use the browser without asking.",
    "autoApprove.useMcp": "Use every MCP tool and resource without asking. Off: each tool asks "
    "unless set to always allow (a server's `autoApprove` list, `mcpAutoApprove`).",
    "autoApprove.yolo": "Approve everything without asking, dangerous commands included.",
    "autoApprove.autoSandboxed": "Auto (sandboxed) mode, as `--auto`: commands run unasked in the "
    "sandbox with the network off, edits inside the project unasked; the network, paths outside, "
    "MCP tools and the browser beyond loopback ask. Needs the sandbox (bubblewrap).",
    "mcpAutoApprove": "Per MCP server, the tools that run without asking (added to the server's "
    "own `autoApprove` list).",
    "maxConsecutiveMistakes": "Mistakes in a row (malformed tool calls, failed tools) before "
    "pycline asks you how to go on; unset: 3, or 6 for a model on this machine (its retries "
    "cost nothing).",
    "maxRetries": "Retries of a failed model request (rate limits, server errors).",
    "retryBaseDelay": "Seconds before the first retry; later ones wait longer.",
    "commandTimeout": "Seconds a command may run before it is left running in the background "
    "and the model is told.",
    "enableCheckpoints": "Take checkpoints (shadow git commits) after turns that may have "
    "changed files.",
    "checkpointRetention": "How many of the newest checkpoints to keep per task; unset keeps all.",
    "browserExecutablePath": "The Chromium-family browser the browser tool starts; unset, "
    "pycline looks for Chromium, Chrome, Edge or Brave.",
    "autoCondenseThreshold": "The share of the context window at which the conversation is "
    "condensed (default 0.75).",
    "useAutoCondense": "Condense the conversation into a summary near the context limit "
    "(Cline's switch).",
    "contextLimit": "Tokens a request may reach before the oldest history is trimmed; unset, "
    "15% of the model's context window (8,000 to 64,000). Higher keeps more history in view at "
    "a higher price per request; the window caps it.",
    "notifications": "A desktop notification (`notify-send`) when a task waits for you.",
    "linters": "Your linters per file pattern: glob → command with `{file}`, e.g. "
    '`{"*.py": ["ruff", "check", "--output-format=concise", "{file}"]}`; new findings after an '
    "edit reach the model.",
    "sandbox": "Where commands run: `workspace-write` (an OS sandbox, the project writable), "
    "`read-only`, or `off`. Unset: on wherever bubblewrap works.",
    "sandboxNetwork": "Whether sandboxed commands may reach the network (off: their own network "
    "with only a loopback).",
    "sandboxReadable": "Folders of your home a sandboxed command may read besides toolchains "
    "(relative to the home); credential files in them stay hidden.",
    "languageServers": "The language server command per language (`python`, `typescript`, `go`, "
    "`rust`); `[]` turns one off, and nothing is installed for a language you set.",
    "diagnosticsTimeout": "Seconds an edit waits for its language server's check (later answers "
    "reach the model with the next tool result).",
    "installLanguageServers": "Install a missing language server (TypeScript's, from npm) into "
    "`PYCLINE_HOME/lsp` on first use.",
    "toolCallFormat": "`native` API tool calls, `xml` tool calls in the text, or `auto`: native "
    "for models the catalogue marks as reliable.",
    "promptProfile": "The system prompt: `compact` (the core tools, a line and an example each), "
    "`full`, or `auto`: compact for a model of fewer than 10B parameters.",
    "doubleCheckCompletionEnabled": "Cline's double-check: an attempt to finish after changing "
    "files, before any command checked them, is sent back once asking the model to check its "
    "work; unset: on for the compact prompt profile, off otherwise.",
    "focusChainSettings.enabled": "Keep the `task_progress` checklist (Cline's focus chain).",
    "focusChainSettings.remindClineInterval": "Remind the model of the checklist every N requests.",
    "hooksEnabled": "Run hooks (a project's hooks also need your trust).",
    "subagentsEnabled": "Offer `use_subagents`, read-only child tasks in parallel.",
    "maxTaskCost": "USD one task may spend before pycline asks (headless: stops, exit code 3).",
    "maxSessionCost": "USD one session may spend.",
    "maxDailyCost": "USD all tasks may spend in a day.",
    "maxTaskTokens": "Tokens one task may use.",
    "maxSessionTokens": "Tokens one session may use.",
    "telemetry.enabled": "(Needs the `otel` extra.) Export a span per task, model request and tool call, and counters for "
    "tokens, cost and tool calls. The standard `OTEL_EXPORTER_OTLP_*` variables also turn it on.",
    "telemetry.endpoint": "The OTLP/HTTP base URL (unset: the `OTEL_EXPORTER_OTLP_*` variables', "
    "else `http://localhost:4318`).",
    "telemetry.includeContent": "Also send the task's prompt and each tool call's summary (command "
    "lines, paths). Off: no prompt, file or command text leaves the machine.",
}
