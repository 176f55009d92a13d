"""The builder and wiring: builds tasks from settings and runs them."""
