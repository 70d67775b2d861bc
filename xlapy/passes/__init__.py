"""Passes: IR -> IR transformations on ``HloModule`` (see ``pass_manager`` for the framework)."""
