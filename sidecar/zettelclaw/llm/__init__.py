"""The model client shared by extraction and the briefing (Anthropic Messages API)."""
