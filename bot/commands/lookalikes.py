"""Ids written in characters that look like, or normalise to, those of a known id.

Ids are matched exactly as written: `ﬁx` (with the ligature U+FB01) is not `fix`, nor is `mа`
(with a Cyrillic а) `ma`, so such a command changes nothing. But whoever wrote it meant the known
id, and their refusal names it: an id whose *skeleton* is a known id's. The skeleton is the id
in Unicode's compatibility form (NFKC: ligatures, full-width and other presentation forms,
super- and subscripts), each letter of another script that looks like a Latin letter or digit
taken as that one (`LOOKALIKE`), each dash, dot or slash that looks like `-`, `.` or `/` taken as
it, and the marks over letters dropped.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

# Letters and signs of other scripts that readers take for ASCII ones (Cyrillic, Greek, Latin
# variants); what NFKC already maps (full-width forms, `ℓ`, `ﬁ`) is not repeated here.
LOOKALIKE = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "һ": "h", "і": "i", "ј": "j", "к": "k", "м": "m", "н": "h", "о": "o",
        "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l",
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T",
        "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ԛ": "Q", "Ԝ": "W",
        "α": "a", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "υ": "u", "ϲ": "c", "ϳ": "j",
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
        "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
        "ı": "i", "ȷ": "j", "ɡ": "g", "ɑ": "a", "ɩ": "i", "ʏ": "y",
        "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "―": "-", "−": "-", "⁃": "-",
        "․": ".", "·": ".", "∙": ".", "⁄": "/", "∕": "/", "⧸": "/",
    }
)  # fmt: skip


def skeleton(text: str) -> str:
    """What `text` looks like: compatibility-normalised, look-alikes taken as ASCII, marks dropped."""
    folded = unicodedata.normalize("NFKC", text).translate(LOOKALIKE)
    return "".join(char for char in unicodedata.normalize("NFD", folded) if not unicodedata.combining(char))


def lookalike(given: str, known: Iterable[str]) -> str | None:
    """The known id that `given` looks like without being it, if there is one."""
    looks = skeleton(given)
    return next((id_ for id_ in known if id_ != given and skeleton(id_) == looks), None)
