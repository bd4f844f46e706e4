"""Long work releases the GIL and stops on Ctrl-C. The job is one whose search runs for
tens of seconds; each test ends it by a SIGINT sent once its condition holds, so neither
waits on the clock."""

from __future__ import annotations

import os
import random
import signal
import threading

import pyarrow as pa
import pytest

import cellsafe as cs


def long_job():
    """A search over a lattice of 19 million nodes (seven quasi-identifiers of eleven
    levels each) on 100,000 rows: about 25 s on one core, far longer than the tests."""
    rng = random.Random(1)
    rows = 100_000
    columns = {f"q{i}": pa.array([rng.randrange(1000) for _ in range(rows)], pa.int64()) for i in range(7)}
    columns["s"] = pa.array([str(rng.randrange(5)) for _ in range(rows)])
    widths = [2, 4, 8, 16, 32, 64, 128, 256, 512]
    return pa.table(columns), dict(
        quasi_identifiers={f"q{i}": cs.hierarchy.intervals(widths) for i in range(7)},
        sensitive=["s"],
        models=[cs.KAnonymity(50)],
        suppression_limit=0.02,
        threads=1,
    )


@pytest.fixture(scope="module")
def job():
    return long_job()


@pytest.fixture(autouse=True)
def ctrl_c_raises():
    """SIGINT raises KeyboardInterrupt during each test, whatever the process inherited: a
    process a non-interactive shell starts in the background ignores SIGINT (so can a CI
    runner's), and a test of an ignored signal tests nothing."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_stops_a_long_search_with_keyboard_interrupt(job):
    table, keys = job
    seen = []

    def progress(stage, position, total):
        seen.append(stage)
        if stage == "search" and seen.count("search") == 1:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt) as raised:
        cs.anonymize(table, progress=progress, **keys)
    assert "search" in seen
    # the search saw the cancellation and stopped, rather than running to its end (a
    # regression test: an interrupt raised in the callback did not cancel the work)
    assert raised.value.cellsafe_work == "cancelled"
    # the package still works after an interrupt
    small = pa.table({"a": ["x", "y", "x", "y"]})
    release = cs.anonymize(small, quasi_identifiers={"a": cs.hierarchy.suppress()}, models=[cs.KAnonymity(2)])
    assert release.table.num_rows == 4


def test_another_thread_runs_during_a_search(job):
    table, keys = job
    count = [0]
    stop = threading.Event()

    start = {}

    def counter():
        while not stop.is_set():
            count[0] += 1
            # this thread made progress while the search ran: it ends the job, as a
            # Ctrl-C would, while the main thread waits on the search
            if "count" in start and count[0] - start["count"] > 200_000 and "sent" not in start:
                start["sent"] = True
                os.kill(os.getpid(), signal.SIGINT)

    worker = threading.Thread(target=counter)

    def progress(stage, position, total):
        if stage == "search":
            start.setdefault("count", count[0])

    worker.start()
    try:
        with pytest.raises(KeyboardInterrupt) as raised:
            cs.anonymize(table, progress=progress, **keys)
        assert raised.value.cellsafe_work == "cancelled"
    finally:
        stop.set()
        worker.join()
    assert start.get("sent"), "the other thread did not run during the search"
