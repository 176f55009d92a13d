"""Sessions: one per workspace, running any number of tasks, and running a task to its end the same
way in every front end."""
