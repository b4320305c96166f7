"""The live GitHub adapter: githubkit over GitHub's GraphQL (reads) and REST (writes) APIs.

Only this package imports githubkit or httpx, and only a live run imports it.
"""
