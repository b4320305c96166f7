"""Slash commands from issue comments, as pure steps.

- `registry`: one spec per verb; `grammar` and `reading`: comment text to typed commands;
  `effects` and `answers`: what a command does, or why it is refused.
- `records`: what the bot's own comments record about commands (decisions, lapsed notices).
- One run: `selection` (which comments) → `policy` (who may; what a drop removes) → `replay`
  (decide new commands, replay recorded ones) → `settle` (the ledger's compaction bound) →
  `outbox` (reactions, replies, notices, reports). `pipeline.process` runs them for the planner.
"""
