"""A strict reader of the mermaid subset perfbot writes: every line must be one of ours, every
label quoted with only safe characters and entity codes, every reference declared."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

LABEL = r"(?:[A-Za-z0-9 _.,/+*()\-]|#[0-9]+;|<br/>)*"
_SUBGRAPH = re.compile(rf'  subgraph (g[0-9]+|levers)\["({LABEL})"\]')
_NODE = re.compile(rf'    ([pl][0-9]+)\["({LABEL})"\]')
_EDGE = re.compile(r"  (p[0-9]+|l[0-9]+) (-->|-\.->) (p[0-9]+|l[0-9]+)")
_CLASSDEF = re.compile(r"  classDef (ready|running|waiting|hold|complete) [a-z0-9:#,-]+")
_CLASS = re.compile(r"  class (p[0-9]+(?:,p[0-9]+)*) (ready|running|waiting|hold|complete)")
_STYLE = re.compile(r"  style (p[0-9]+) [a-z0-9:#,-]+")
_LINKSTYLE = re.compile(r"  linkStyle ([0-9]+(?:,[0-9]+)*) [a-z0-9:#, -]+")


@dataclass
class Flowchart:
    groups: dict[str, str] = field(default_factory=dict)
    nodes: dict[str, str] = field(default_factory=dict)
    members: dict[str, list[str]] = field(default_factory=dict)
    edges: list[tuple[str, str, str]] = field(default_factory=list)
    classes: dict[str, str] = field(default_factory=dict)
    styled: list[str] = field(default_factory=list)
    link_styles: list[tuple[list[int], str]] = field(default_factory=list)


def decode(label: str) -> str:
    """What mermaid shows for a label: entity codes back to characters."""
    return re.sub(r"#([0-9]+);", lambda m: chr(int(m.group(1))), label)


def parse(text: str) -> Flowchart:
    lines = text.splitlines()
    assert lines[0] == "flowchart LR", lines[0]
    chart, group = Flowchart(), None
    for line in lines[1:]:
        if m := _SUBGRAPH.fullmatch(line):
            assert group is None, "nested subgraph"
            group = m.group(1)
            chart.groups[group], chart.members[group] = m.group(2), []
        elif line == "  end":
            assert group is not None, "end without subgraph"
            group = None
        elif m := _NODE.fullmatch(line):
            assert group is not None, line
            assert m.group(1) not in chart.nodes, line
            chart.nodes[m.group(1)] = m.group(2)
            chart.members[group].append(m.group(1))
        elif m := _EDGE.fullmatch(line):
            chart.edges.append((m.group(1), m.group(2), m.group(3)))
        elif m := _CLASS.fullmatch(line):
            chart.classes.update(dict.fromkeys(m.group(1).split(","), m.group(2)))
        elif m := _STYLE.fullmatch(line):
            chart.styled.append(m.group(1))
        elif m := _LINKSTYLE.fullmatch(line):
            chart.link_styles.append(([int(i) for i in m.group(1).split(",")], line))
        else:
            assert _CLASSDEF.fullmatch(line), f"not perfbot's mermaid: {line!r}"
    assert group is None, "subgraph not closed"
    known = set(chart.nodes)
    assert all(a in known and b in known for a, _, b in chart.edges)
    assert set(chart.classes) <= known
    assert set(chart.styled) <= known
    assert all(0 <= i < len(chart.edges) for indices, _ in chart.link_styles for i in indices)
    return chart
