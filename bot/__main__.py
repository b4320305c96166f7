"""`python -m bot` runs the perfbot command line."""

from bot.cli import main

raise SystemExit(main())
