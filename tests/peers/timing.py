"""Whole-process time and peak RSS of one command, the same way for cctx and every peer.

Peak RSS comes from GNU time (/usr/bin/time -f %M), not from our own os.wait4: Linux carries a
process's RSS high-water mark across exec, so a child forked from this (large) driver reports at
least the driver's RSS (measured: `true` forked from a 500 MB python reports 511 MB). /usr/bin/time
is a small process, so the tool it forks starts from its few MB. The wall clock is taken here
around the whole (GNU time adds about a millisecond). stdout goes to a file (a report can be
megabytes: no pipe to drain while timing). Without /usr/bin/time, os.wait4's figure is kept and
flagged ("rss_inherited").
"""
import os
import shutil
import pathlib
import signal
import subprocess
import threading
import time


def run(cmd, stdout_path: pathlib.Path, timeout: float = 600, env=None) -> dict:
    """{"rc", "seconds", "rss_mb", "stderr"} of `cmd`; rc -9 when it was killed at `timeout`."""
    stdout_path.parent.mkdir(parents=True, exist_ok=True)
    err_path = stdout_path.with_suffix(stdout_path.suffix + ".err")
    rss_path = stdout_path.with_suffix(stdout_path.suffix + ".rss")
    gnu_time = shutil.which("time", path="/usr/bin")
    if gnu_time:
        cmd = [gnu_time, "-f", "%M", "-o", rss_path, *cmd]
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
    result = {"rc": proc.returncode, "seconds": seconds, "rss_mb": usage.ru_maxrss / 1024.0,
              "stderr": stderr.strip()[-400:]}
    lines = rss_path.read_text().split() if gnu_time and rss_path.exists() else []
    rss_path.unlink(missing_ok=True)
    if lines and lines[-1].isdigit():
        result["rss_mb"] = int(lines[-1]) / 1024.0
    else:
        result["rss_inherited"] = True
    return result
