"""The subject registry (subjects.json) and renames that carry into the log."""
