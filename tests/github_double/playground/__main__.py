"""`python -m tests.github_double.playground COMMAND`: try perfbot on a small team's repository
served by the GitHub double (see the package's docstring, and the README's "Try it").

Every command takes `--dir` (default `playground`), the folder the team's repository is laid out in.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import FrameType

from bot.errors import BotError
from bot.files import write_atomic
from tests.github_double import DEFAULT_TOKEN
from tests.github_double.playground import person, team
from tests.github_double.playground.person import BOT, RUNNING, Playground

PROJECT = Path(__file__).resolve().parents[3]
BRANCH = "perfbot/update"  # the team's config keeps perfbot's default branch for its PR
CHECKED_OUT = ("config/perfbot.yaml", "config/snapshot.yaml", "docs/current-constraints.md")
DASHBOARD_LABEL = "perfbot-dashboard"
START_SECONDS = 20.0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tests.github_double.playground", description=__doc__)
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument("--dir", type=Path, default=Path("playground"), help="the playground's folder")
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[where], help=help_text, description=help_text)

    start = command("start", "lay out the team's repository, start the double on it, say what to do next")
    start.add_argument("--port", type=int, default=0, help="loopback port (default: any free one)")
    run = command("run", "check out the default branch and run `perfbot reconcile` on it, as the workflow does")
    run.add_argument("args", nargs=argparse.REMAINDER, help="more flags for perfbot reconcile, e.g. --dry-run")
    said = command("comment", "comment on an issue as a person")
    said.add_argument("issue", type=int)
    said.add_argument("text")
    said.add_argument("--as", dest="login", default="dana", help="who comments (default dana)")
    edit = command("edit", "edit a comment as its author")
    edit.add_argument("comment_id", type=int)
    edit.add_argument("text")
    edit.add_argument("--as", dest="login", default="dana", help="the comment's author (default dana)")
    for verb in ("merge", "close"):
        pull = command(verb, f"{verb} the regeneration PR (or PR NUMBER) as a person")
        pull.add_argument("number", type=int, nargs="?", help="the PR (default: the open regeneration PR)")
        pull.add_argument("--as", dest="login", default="dana", help="who does it (default dana)")
    release = command("release", "the host next to dos releases a holder's leases and publishes the rest")
    release.add_argument("holder", help="the lease holder, e.g. issue-2-profile-handlers")
    show = command("show", "print an issue and its comments; `dashboard` also writes dashboard.html")
    show.add_argument("issue", help="an issue number, or `dashboard`")
    command("stop", "stop the double (the folder stays)")
    serve_it = command("serve", "run the double in the foreground (what `start` runs in the background)")
    serve_it.add_argument("--port", type=int, default=0)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except BotError as error:
        sys.stderr.write(error.user_message() + "\n")
        return 1
    except BrokenPipeError:
        # The reader went away (`show 3 | head`): stop quietly, as perfbot's own command line does,
        # with no traceback now or when the interpreter flushes at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


# --- the double's process


def _start(args: argparse.Namespace) -> int:
    folder: Path = args.dir
    if (folder / RUNNING).exists() and _alive(Playground.find(folder).pid):
        raise BotError(f"a playground double already runs in {folder}/; stop it first (`stop`)")
    team.lay_out(folder, dt.datetime.now(dt.UTC))
    _perfbot(folder, "render", "--write")
    log = (folder / "double.log").open("ab")
    command = [sys.executable, "-m", "tests.github_double.playground", "serve", "--dir", str(folder.resolve())]
    subprocess.Popen(
        [*command, "--port", str(args.port)], stdout=log, stderr=log, start_new_session=True, env=_environ()
    )
    playground = _wait_for(folder)
    _perfbot(folder, "publish-leases", "--from", team.HOST_LEASES, api=playground)
    _say(_next_steps(playground))
    return 0


def _serve(args: argparse.Namespace) -> int:
    # Only the double's own process imports it (graphql-core, jsonschema, GitHub's specs): the other
    # commands speak to it over HTTP, each a process of its own.
    from tests.github_double import GitHubDouble
    from tests.github_double.server import serve

    folder: Path = args.dir
    tokens = {person.token_of(login): login for login in team.people()}
    double = GitHubDouble(state_path=folder / team.STATE, repo_dir=folder, tokens=tokens)
    server = serve(double, args.port)
    double.api_url = f"http://127.0.0.1:{server.server_address[1]}"
    running = {"pid": os.getpid(), "api_url": double.api_url, "repository": double.world.repository}
    stopped = threading.Event()

    def stop(_signal: int, _frame: FrameType | None) -> None:
        stopped.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    write_atomic(folder / RUNNING, json.dumps(running) + "\n")
    try:
        stopped.wait()
    finally:
        server.shutdown()
        server.server_close()
        # The last thing it does: `stop` waits for this, not for the process to be gone, which an
        # orphan is only once the system reaps it (seconds later on some machines).
        (folder / RUNNING).unlink(missing_ok=True)
    return 0


def _stop(args: argparse.Namespace) -> int:
    playground = Playground.find(args.dir)
    if _alive(playground.pid):
        os.kill(playground.pid, signal.SIGTERM)
    deadline = time.monotonic() + START_SECONDS
    while (args.dir / RUNNING).exists() and _alive(playground.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    (args.dir / RUNNING).unlink(missing_ok=True)
    _say(f"stopped the double of {playground.repository} (its state stays in {args.dir / team.STATE})")
    return 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _wait_for(folder: Path) -> Playground:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if (folder / RUNNING).exists():
            return Playground.find(folder)
        time.sleep(0.05)
    raise BotError(f"the double did not start within {START_SECONDS:.0f} s; see {folder / 'double.log'}")


def _environ(api: Playground | None = None) -> dict[str, str]:
    """The environment of the processes started here: the project importable, and for perfbot's
    runs against the double, what a workflow gives it."""
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(PROJECT), os.environ.get("PYTHONPATH")]))}
    for name in ("GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH"):
        environ.pop(name, None)
    if api is not None:
        environ |= {"GITHUB_TOKEN": DEFAULT_TOKEN, "GITHUB_REPOSITORY": api.repository, "GITHUB_API_URL": api.api_url}
    return environ


def _perfbot(folder: Path, *args: str, api: Playground | None = None) -> int:
    """`perfbot ARGS` in the playground's folder (against the double when `api` is given)."""
    done = subprocess.run([sys.executable, "-m", "bot", *args], cwd=folder, env=_environ(api), check=False)
    if done.returncode not in (0, 1) or (done.returncode == 1 and args[0] != "reconcile"):
        raise BotError(f"perfbot {' '.join(args)} exited {done.returncode}")
    return done.returncode


def _shell_python() -> str:
    """How to call this Python from the folder people run these commands in."""
    here = Path(sys.executable)
    try:
        return str(here.relative_to(Path.cwd().resolve()) if here.is_absolute() else here)
    except ValueError:
        return str(here)


def _next_steps(playground: Playground) -> str:
    me = f"{_shell_python()} -m tests.github_double.playground"
    folder = "" if playground.folder == Path("playground") else f" --dir {playground.folder}"
    lines = [
        f"GitHub double for {playground.repository} at {playground.api_url} (pid {playground.pid}),",
        f"its repository in {playground.folder}/: 4 packets on issues #2-#5 of program #1; lee holds a live",
        "lease on internal/api/** for #2; dana (maintain), lee and sam (write) and robin (read) are the team.",
        "",
        "What to do next:",
        f"  {me} run{folder}                       # perfbot's run, as the workflow starts it",
        f"  {me} show dashboard{folder}            # the dashboard issue perfbot keeps",
        f'  {me} comment 3 "/perf claim api.cache-warmup" --as sam{folder}',
        f"  {me} release issue-2-profile-handlers{folder}   # lee's lease is released",
        f"  {me} merge{folder}                     # dana merges the regeneration PR",
        f"  {me} stop{folder}",
        f"perfbot itself, in {playground.folder}/:",
        f"  GITHUB_TOKEN={DEFAULT_TOKEN} GITHUB_REPOSITORY={playground.repository} "
        f"GITHUB_API_URL={playground.api_url} perfbot reconcile",
    ]
    return "\n".join(lines)


# --- what the workflow and the team do


def _run(args: argparse.Namespace) -> int:
    playground = Playground.find(args.dir)
    for path in CHECKED_OUT:  # actions/checkout: the default branch's files, as merged
        text = playground.file(f"HEAD:{path}")
        target = args.dir / path
        if text is not None and (not target.exists() or target.read_text(encoding="utf-8") != text):
            write_atomic(target, text)
            _say(f"checked out {path} from the default branch")
    _say("$ perfbot reconcile " + " ".join(args.args))
    return _perfbot(args.dir, "reconcile", *args.args, api=playground)


def _comment(args: argparse.Namespace) -> int:
    _say(person.comment(Playground.find(args.dir), args.login, args.issue, args.text))
    return 0


def _edit(args: argparse.Namespace) -> int:
    _say(person.edit(Playground.find(args.dir), args.login, args.comment_id, args.text))
    return 0


def _merge(args: argparse.Namespace) -> int:
    playground = Playground.find(args.dir)
    _say(person.merge(playground, args.login, args.number or playground.open_pull(BRANCH)))
    return 0


def _close(args: argparse.Namespace) -> int:
    playground = Playground.find(args.dir)
    _say(person.close(playground, args.login, args.number or playground.open_pull(BRANCH)))
    return 0


def _release(args: argparse.Namespace) -> int:
    playground = Playground.find(args.dir)
    host = args.dir / team.HOST_LEASES
    leases = json.loads(host.read_text(encoding="utf-8"))
    kept = [lease for lease in leases if lease.get("holder") != args.holder]
    if len(kept) == len(leases):
        held = sorted({str(lease.get("holder")) for lease in leases}) or ["none"]
        raise BotError(f"no live lease is held by {args.holder} (held: {', '.join(held)})")
    write_atomic(host, json.dumps(kept, indent=2) + "\n")
    _say(f"the host released {len(leases) - len(kept)} lease(s) of {args.holder}; publishing the readback")
    _perfbot(args.dir, "publish-leases", "--from", team.HOST_LEASES, api=playground)
    return 0


def _show(args: argparse.Namespace) -> int:
    from bot.commands.reading import to_html  # GitHub's Markdown, for the dashboard alone

    playground = Playground.find(args.dir)
    number = _dashboard(args.dir) if args.issue == "dashboard" else int(args.issue)
    issue = playground.call(BOT, "GET", f"/issues/{number}")
    _say(f"#{number} {issue['title']} ({issue['state']})\n\n{issue.get('body') or ''}")
    for said in playground.call(BOT, "GET", f"/issues/{number}/comments?per_page=100"):
        _say(f"\n--- {said['user']['login']} (comment {said['id']}):\n{said['body']}")
    if args.issue == "dashboard":
        page = args.dir / "dashboard.html"
        write_atomic(page, f'<!doctype html><meta charset="utf-8"><title>#{number}</title>\n{to_html(issue["body"])}')
        _say(f"\nrendered as GitHub renders it: {page}")
    return 0


def _dashboard(folder: Path) -> int:
    """The dashboard issue's number, as the double's state holds it."""
    state = json.loads((folder / team.STATE).read_text(encoding="utf-8"))
    found = [i["number"] for i in state["issues"] if DASHBOARD_LABEL in i.get("labels", [])]
    if not found:
        raise BotError("perfbot has not opened the dashboard issue yet: run it first (`run`)")
    return int(found[0])


def _say(text: str) -> None:
    """One message for the person at the terminal, out before any process started after it."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


COMMANDS = {
    "start": _start,
    "serve": _serve,
    "stop": _stop,
    "run": _run,
    "comment": _comment,
    "edit": _edit,
    "merge": _merge,
    "close": _close,
    "release": _release,
    "show": _show,
}

if __name__ == "__main__":
    sys.exit(main())
