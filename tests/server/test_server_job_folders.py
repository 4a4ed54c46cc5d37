"""Per-job clone folders: a worker killed mid-job leaves its folder, and the next job removes it; a
folder whose job is alive is never touched."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from aftershock.server.github.fetch import job_folder, remove_abandoned_job_folders

# A worker that takes a job folder, says where it is, and then waits to be killed.
WORKER = """
import sys, time
from pathlib import Path
from aftershock.server.github.fetch import job_folder
with job_folder(Path(sys.argv[1]), "delivery-1") as folder:
    (folder / "repo").mkdir()
    print(folder, flush=True)
    time.sleep(600)
"""


def _start_worker(work_dir: Path) -> tuple[subprocess.Popen[str], Path]:
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(work_dir)], stdout=subprocess.PIPE, text=True
    )
    assert worker.stdout is not None
    return worker, Path(worker.stdout.readline().strip())


def _age(folder: Path, seconds: float) -> None:
    past = time.time() - seconds
    os.utime(folder, (past, past))


def test_a_killed_workers_folder_is_removed_by_the_next_job_and_a_live_one_is_kept(tmp_path):
    live, live_folder = _start_worker(tmp_path)
    killed, killed_folder = _start_worker(tmp_path)
    try:
        killed.send_signal(signal.SIGKILL)
        killed.wait()
        assert killed_folder.is_dir()  # nothing ran to clean it up
        _age(live_folder, 3600)
        _age(killed_folder, 3600)
        with job_folder(tmp_path, "delivery-2") as folder:
            assert folder.is_dir()
            assert not killed_folder.exists()
            assert live_folder.is_dir()  # its worker still holds the lock
        assert not folder.exists()
    finally:
        live.kill()
        live.wait()
    assert remove_abandoned_job_folders(tmp_path) == [live_folder]  # now abandoned too
    assert list(tmp_path.iterdir()) == []


def test_a_young_folder_is_left_alone_even_without_a_holder(tmp_path):
    killed, folder = _start_worker(tmp_path)
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    assert remove_abandoned_job_folders(tmp_path) == []  # its job may still be starting
    _age(folder, 120)
    assert remove_abandoned_job_folders(tmp_path) == [folder]
