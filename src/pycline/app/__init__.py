"""The app layer: tasks built from settings and run for every front end, in rooms that import only
the rooms below them: settings, services, live, builders and background, sessions, doctor and batch."""
