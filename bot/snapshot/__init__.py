"""The snapshot: its typed model, the round-trip store, validation and the lever graph."""
