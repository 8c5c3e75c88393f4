"""Standalone legacy scorers kept for existing experiments (inclusive ``[start, end]`` offsets).

Nothing here imports the rest of mycelium: each module is a single standard-library
file that can be copied into an old experiment and imported on its own.
"""
