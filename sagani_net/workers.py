"""Worker processes that end with the process that made them.

A process pool's worker waits on a queue whose writing end it holds itself (a spawned child
gets both ends), so a parent gone without closing its pool (a SIGTERM, a SIGKILL) left its
workers waiting for ever: ``sagani play``'s search bots, a tournament's games, an analysis's
searches. Each worker made here watches its parent and ends once it is gone.

Ctrl-C reaches the whole process group: the process that made the pool stops it (its
KeyboardInterrupt), so a worker ends at once and says nothing, where one waiting for work
printed a traceback of the pool's queue (a tournament with a core more than its games left).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the pool is imported when one is made: it costs self-play's start-up
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing.context import BaseContext

#: How often a worker looks whether its parent is still there.
PARENT_CHECK_S = 0.5


def count(asked: int | None, jobs: int) -> int:
    """How many workers ``jobs`` pieces of work get: ``asked`` (None: every core), never more
    than the cores nor the jobs, at least 1. A pool starts every worker it is given, forked
    at once, and each piece is all CPU: '--workers 1000' forked 1,000 processes for 20
    searches or 2 games, gigabytes on 2 cores, and no sooner done."""
    cores = os.cpu_count() or 1
    return max(1, min(asked or cores, cores, jobs))


def pool(workers: int, context: BaseContext | None = None) -> ProcessPoolExecutor:
    """A process pool of ``workers`` (made by ``context``) that end when this process does."""
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, mp_context=context,
                               initializer=_follow_parent, initargs=(os.getpid(),))


def stop(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` now, on an error or an interruption: the work not started is dropped
    (the pool would do it all first) and the workers still busy are ended, not waited for (a
    long search or game would hold Ctrl-C for minutes; ProcessPoolExecutor has no public way
    to stop its workers before Python 3.14)."""
    busy = list(pool._processes.values())
    # (typeshed types this attribute as the thread's wakeup pipe; it is the thread)
    manager: threading.Thread | None = pool._executor_manager_thread  # type: ignore[assignment]
    pool.shutdown(wait=False, cancel_futures=True)
    for process in busy:
        process.terminate()
    # The pool's own thread reaps the workers it sees die; joining them here at the same time
    # could lose the exit status to it (a child then looks alive).
    if manager is not None:
        manager.join()
    for process in busy:
        process.join()


def _follow_parent(parent: int) -> None:
    signal.signal(signal.SIGINT, _interrupted)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(1)  # orphaned: whatever it works on, nobody is there to read it

    threading.Thread(target=watch, name="follow-parent", daemon=True).start()


def _interrupted(signum: int, _frame: object) -> None:
    os._exit(128 + signum)  # as a shell counts it: 130; the parent reports the interruption
