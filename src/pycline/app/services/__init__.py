"""What every front end offers beside a running task: saved tasks, checkpoints, worktrees, the /
and @ menus, tool facts, exit codes and shared flags."""
