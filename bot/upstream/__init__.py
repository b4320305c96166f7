"""`perfbot import`: upstream fak's snapshot JSON and lever graph JSON, moved into perfbot's files."""
