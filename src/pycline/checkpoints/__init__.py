"""Checkpoints: a shadow git repository outside the workspace that snapshots it after each turn."""

from pycline.checkpoints.shadow import ShadowGit, workspace_key
from pycline.checkpoints.types import (
    ChangeStatus,
    Checkpoint,
    Checkpointer,
    CheckpointError,
    FileChange,
    RestoreResult,
)

__all__ = [
    "ChangeStatus",
    "Checkpoint",
    "CheckpointError",
    "Checkpointer",
    "FileChange",
    "RestoreResult",
    "ShadowGit",
    "workspace_key",
]
