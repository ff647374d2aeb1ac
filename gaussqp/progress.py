"""A progress display for long loops: a tqdm bar when tqdm is importable, else a plain counter line on stderr.

Shared by the cross-validation runner (:mod:`gaussqp.studies.runner`) and the batch solves (:mod:`gaussqp.batch`);
tqdm is optional (the ``studies`` extra) and imported only when a display is asked for.
"""

from __future__ import annotations

import sys
import time


class Progress:
    """``total`` steps, counted by :meth:`update`; nothing is shown unless ``enabled``. ``desc`` and ``unit`` label
    the bar (tqdm) or the counter line, which is rewritten at most once a second and ends with a newline."""

    def __init__(self, total: int, enabled: bool, desc: str = "crossval", unit: str = "run"):
        self.total, self.done, self.enabled, self.bar = total, 0, enabled, None
        self.desc, self.unit = desc, unit
        self._last = 0.0
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=total, unit=unit, desc=desc, file=sys.stderr)

    def update(self) -> None:
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
        elif self.enabled and (time.monotonic() - self._last >= 1 or self.done == self.total):
            self._last = time.monotonic()
            print(
                f"\r{self.desc} {self.done}/{self.total} {self.unit}s",
                end="" if self.done < self.total else "\n",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


__all__ = ["Progress"]
