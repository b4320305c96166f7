"""`python -m tests.github_double --state STATE.json --port N [--log REQUESTS.jsonl] [--repo-dir DIR]`

Serves REST at `/` and GraphQL at `/graphql` (and GHES's `/api/v3`, `/api/graphql`) on 127.0.0.1,
so `GITHUB_API_URL=http://127.0.0.1:N` points perfbot at it. Writes are saved to the state file.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import threading
from pathlib import Path

from bot.errors import BotError
from tests.github_double.double import GitHubDouble
from tests.github_double.protocol import DEFAULT_TOKEN
from tests.github_double.server import serve


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tests.github_double", description=__doc__)
    parser.add_argument("--state", type=Path, required=True, help="offline state file (read and written)")
    parser.add_argument("--port", type=int, required=True, help="loopback port (0: any free port)")
    parser.add_argument("--log", type=Path, help="append each request as a JSON line here")
    parser.add_argument("--repo-dir", type=Path, default=Path.cwd(), help="the default branch's files (default: cwd)")
    parser.add_argument("--token", default=DEFAULT_TOKEN, help=f"the accepted token (default {DEFAULT_TOKEN!r})")
    parser.add_argument("--any-token", action="store_true", help="accept any non-empty token")
    parser.add_argument("--now", type=dt.datetime.fromisoformat, help="a fixed clock, ISO-8601 (default: the clock)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    fixed = args.now.replace(tzinfo=args.now.tzinfo or dt.UTC) if args.now else None
    try:
        double = GitHubDouble(
            state_path=args.state,
            repo_dir=args.repo_dir,
            token=None if args.any_token else args.token,
            clock=(lambda: fixed) if fixed else (lambda: dt.datetime.now(dt.UTC)),
            log_path=args.log,
        )
    except BotError as error:
        print(error.user_message(), file=sys.stderr)  # noqa: T201
        return 1
    server = serve(double, args.port)
    double.api_url = f"http://127.0.0.1:{server.server_address[1]}"
    print(f"GitHub double for {double.world.repository} at {double.api_url}", flush=True)  # noqa: T201
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
