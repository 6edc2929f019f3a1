"""The append-only event log: the truth every other file is derived from."""
