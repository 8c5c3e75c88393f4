"""The CLI tests' fixtures, defined in ``cli_data`` beside their shared data."""

from cli_data import expected, files, frame  # noqa: F401  (fixtures)
