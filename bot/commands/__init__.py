"""Slash commands from issue comments, as pure steps.

- `registry`: one spec per verb; `grammar` and `reading`: comment text to typed commands
  (`reading` keeps only the lines GitHub shows as top-level paragraph text, reading cmark-gfm's
  HTML as a browser builds the page with `browser_parse`); `effects`: what a command does (a
  change to the snapshot, or an answer), or why it is refused.
- `records`: what the bot's own comments record about commands (decisions, lapsed notices).
- One run: `selection` (which comments) → `replay` (who may, what a drop removes; decide new
  commands, replay recorded ones) → the ledger's compaction bound → `outbox` (reactions, replies,
  notices, reports). `pipeline.process` runs them for the planner.
"""
