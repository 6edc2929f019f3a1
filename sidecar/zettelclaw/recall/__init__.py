"""What the agent is given before every turn: the last handoff, only in private sessions."""
