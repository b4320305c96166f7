"""The double in-process: an httpx transport, e.g. `GitHub(token, base_url=..., transport=...)`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx

from tests.github_double.protocol import Request

if TYPE_CHECKING:
    from tests.github_double.double import GitHubDouble


class DoubleTransport(httpx.BaseTransport):
    def __init__(self, double: GitHubDouble) -> None:
        self.double = double

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        raw_path = request.url.raw_path.decode("ascii")
        ours = Request(
            method=request.method,
            path=request.url.path,
            query=dict(request.url.params),
            headers={k.lower(): v for k, v in request.headers.items()},
            body=request.read(),
            raw_path=raw_path,
        )
        answer = self.double.handle(ours)
        if answer is None:
            raise httpx.ReadTimeout("the GitHub double sent no answer (an injected timeout)", request=request)
        return httpx.Response(answer.status, headers=answer.headers, content=answer.content(), request=request)
