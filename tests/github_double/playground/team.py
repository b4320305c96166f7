"""The small team's repository: its files laid out in a folder, dated by today's clock.

The team (`team/`): one constraint, one program on umbrella issue #1, four packets on issues #2-#5
(one running under lee's live lease, one ready, one waiting for the first, one waiting for the
lease), and four people: dana (maintain), lee and sam (write), robin (read).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

TEAM = Path(__file__).parent / "team"
# Where the host next to dos keeps what `dos lease-lane live` printed last (not part of the repository).
HOST_LEASES = "host-leases.json"
STATE = "state.json"


def people() -> dict[str, str]:
    """Each person's login and collaborator permission."""
    state = json.loads((TEAM / STATE).read_text(encoding="utf-8"))
    return dict(state["permissions"])


def lay_out(folder: Path, now: dt.datetime) -> None:
    """The repository's files and the double's state file in `folder` (made if missing)."""
    today = now.date()
    stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    (folder / "config").mkdir(parents=True, exist_ok=True)
    (folder / "docs").mkdir(exist_ok=True)
    snapshot = (TEAM / "snapshot.yaml").read_text(encoding="utf-8")
    snapshot = snapshot.replace("{today}", today.isoformat())
    snapshot = snapshot.replace("{review}", (today + dt.timedelta(days=14)).isoformat())
    (folder / "config" / "snapshot.yaml").write_text(snapshot, encoding="utf-8")
    (folder / "config" / "perfbot.yaml").write_bytes((TEAM / "perfbot.yaml").read_bytes())
    leases = (TEAM / "leases.json").read_text(encoding="utf-8").replace("{now}", stamp)
    (folder / HOST_LEASES).write_text(leases, encoding="utf-8")
    (folder / STATE).write_bytes((TEAM / STATE).read_bytes())
