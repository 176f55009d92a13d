"""The shared test doubles live in `pycline.testing`; loop tests import them from here too."""

from pycline.testing import (
    GatedProvider,
    RecordingHost,
    Responder,
    complete,
    make_task,
    no,
    yes,
)

__all__ = ["GatedProvider", "RecordingHost", "Responder", "complete", "make_task", "no", "yes"]
