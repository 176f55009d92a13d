"""Background tasks: each runs in its own detached process with a control socket; the board."""
