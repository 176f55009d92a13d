"""Command execution: a pseudo-terminal runner (process), output cleaning and bounding
(cleaning, collector), process-group control (groups), the background registry (background) and
the commands that always need approval (danger)."""
