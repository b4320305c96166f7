"""perfbot: keeps a repository's current performance-constraints page true."""
