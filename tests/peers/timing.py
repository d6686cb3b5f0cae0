"""Whole-process time and peak RSS of one command, the same way for cctx and every peer.

os.wait4 returns the rusage of exactly the child waited for (getrusage(RUSAGE_CHILDREN) would
give the largest RSS of any child so far), and the wall clock is taken around the fork and the
wait. stdout goes to a file (a report can be megabytes: no pipe to drain while timing).
"""
import os
import pathlib
import signal
import subprocess
import threading
import time


def run(cmd, stdout_path: pathlib.Path, timeout: float = 600, env=None) -> dict:
    """{"rc", "seconds", "rss_mb", "stderr"} of `cmd`; rc -9 when it was killed at `timeout`."""
    stdout_path.parent.mkdir(parents=True, exist_ok=True)
    err_path = stdout_path.with_suffix(stdout_path.suffix + ".err")
    with open(stdout_path, "wb") as out, open(err_path, "wb") as err:
        started = time.perf_counter()
        proc = subprocess.Popen([str(c) for c in cmd], stdout=out, stderr=err, env=env,
                                start_new_session=True)
        timer = threading.Timer(timeout, lambda: os.killpg(proc.pid, signal.SIGKILL))
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)  # so Popen does not wait again
    stderr = err_path.read_text(errors="replace")
    err_path.unlink(missing_ok=True)
    return {"rc": proc.returncode, "seconds": seconds, "rss_mb": usage.ru_maxrss / 1024.0,
            "stderr": stderr.strip()[-400:]}
