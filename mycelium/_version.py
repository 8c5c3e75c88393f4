"""The version of mycelium: the one place it is written (packaging reads it from here)."""

__version__ = "0.1.0"
