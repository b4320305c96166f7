"""The GitHub boundary: the port, what is observed, events, markers and the adapters."""
