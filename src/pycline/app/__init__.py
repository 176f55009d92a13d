"""The controller and wiring: builds tasks from settings and runs them."""
