"""The last few results of a pure function, by every input it reads: a bounded memo, the least
recently used result out first. Only for results no reader changes (frozen models, text)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    """At most `size` results. A lock keeps it whole where threads share it (the GitHub double
    served over HTTP answers on threads of its own)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._results: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._results.get(key)
            if found is not None:
                self._results.move_to_end(key)
            return found

    def keep(self, key: K, value: V) -> None:
        with self._lock:
            self._results[key] = value
            self._results.move_to_end(key)
            while len(self._results) > self.size:
                self._results.popitem(last=False)
