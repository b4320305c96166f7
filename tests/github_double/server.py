"""The double as a real HTTP server on a loopback port (stdlib `ThreadingHTTPServer`)."""

from __future__ import annotations

import functools
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from tests.github_double.double import GitHubDouble
from tests.github_double.openapi_check import NotGitHubs
from tests.github_double.protocol import Request, Response, error_body


def handler_for(double: GitHubDouble, silence: float) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to `double`; an injected timeout keeps silent `silence` seconds."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # An answer goes out in two writes (the headers, then the body). With Nagle's algorithm on,
        # the body waits for the client to acknowledge the headers, which it delays (about 40 ms on
        # Linux): a stall in every exchange over a kept-alive connection, as GitHub's never has.
        disable_nagle_algorithm = True

        def _serve(self) -> None:
            url = urlsplit(self.path)
            length = int(self.headers.get("content-length") or 0)
            request = Request(
                method=self.command,
                path=url.path,
                query=dict(parse_qsl(url.query)),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=self.rfile.read(length) if length else b"",
                raw_path=self.path,
            )
            try:
                answer = double.handle(request)
            except NotGitHubs as wrong:
                # The client sees why: the exchange is not GitHub's (tests/github_double/openapi_check.py).
                print(wrong, file=sys.stderr)  # noqa: T201
                answer = Response(500, error_body(500, str(wrong)))
            except Exception:
                traceback.print_exc(file=sys.stderr)
                answer = Response(500, error_body(500, "Server Error"))
            if answer is None:
                time.sleep(silence)
                self.close_connection = True
                return
            content = answer.content()
            self.date = answer.headers.get("date")
            self.send_response(answer.status)
            for name, value in answer.headers.items():
                if name == "date":
                    continue  # sent by send_response, in the double's time (date_time_string)
                self.send_header(name, value)
            self.send_header("content-length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _serve

        def date_time_string(self, timestamp: float | None = None) -> str:
            """The double's clock, not the machine's: the `Date` GitHub's answers carry."""
            return getattr(self, "date", None) or super().date_time_string(timestamp)

        def log_message(self, format: str, *args: object) -> None:
            """The double keeps its own request log."""

    return Handler


# How often the serving loop looks for `shutdown()`, which waits until it does. At socketserver's
# default of half a second, each server a test stopped left it idle for up to that long: about a
# second of every test that runs perfbot over loopback HTTP.
SHUTDOWN_POLL_SECONDS = 0.01


def serve(double: GitHubDouble, port: int, host: str = "127.0.0.1", silence: float = 30.0) -> ThreadingHTTPServer:
    """A started server (in a daemon thread); stop it with `shutdown()` then `server_close()`."""
    server = ThreadingHTTPServer((host, port), handler_for(double, silence))
    server.daemon_threads = True
    loop = functools.partial(server.serve_forever, poll_interval=SHUTDOWN_POLL_SECONDS)
    threading.Thread(target=loop, name="github-double", daemon=True).start()
    return server
