"""Noise in motion: animated frames with time as an axis, and hand-drawn wobble."""
