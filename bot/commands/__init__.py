"""Slash commands: the registry of verbs, their grammar, who may use them, their effects and replay."""
