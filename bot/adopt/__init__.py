"""`perfbot init`: scaffold a repository that adopts perfbot, fitted to it and written all or nothing.

`branch` learns the repository's default branch from git, `scaffold` composes and checks every
file from templates shipped inside the package, and `place` checks every path before the first
is written and takes back what it wrote when a write fails. Nothing is imported here, so the
command line can take `branch`'s checks without loading the renderer.
"""
