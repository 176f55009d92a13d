"""Making tasks from settings: the builder, the wiring of concrete classes, providers (the built-in
model among them), MCP and telemetry."""
