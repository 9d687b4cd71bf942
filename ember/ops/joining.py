"""Joining and splitting: cat, stack, split, chunk, unbind, flip, roll, repeat, ..."""

__all__ = []
