"""A place to try perfbot: the GitHub double serving a small team's repository, and a command line
to act on it as the team's people would on GitHub.

`python -m tests.github_double.playground start` lays the team's repository out in a folder
(`playground/` by default: config, snapshot, page, the double's state file), starts the double on a
loopback port in the background, publishes the team's live lease as the host next to dos would,
and prints what to do next. The other subcommands act as a person over the double's REST API
(comment, edit a comment, merge or close the regeneration PR), release the lease, run perfbot as
the workflow would, show an issue or the dashboard, and stop the double.
"""
