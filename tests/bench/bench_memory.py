"""Memory: the server's resident memory with the vision module loaded and idle (issue 6: at most 150 MB).

Measured in a child process (VmRSS from /proc), against a bare Python interpreter in the same run.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile

CHILD = r"""
import os, sys, time
from companion.config import Config
from companion.service import Service
from companion.web import create_app
import companion.vision.adjudicate, companion.vision.calibrate, companion.vision.dice  # the vision module, loaded
service = Service(Config(database=sys.argv[1]))
app = create_app(service)
client = app.test_client()
client.get("/"); client.get("/api/state"); client.get("/api/board")
time.sleep(0.5)
print(next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmRSS")))
service.close()
"""

BARE = 'print(next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmRSS")))'


def run() -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        rss = int(subprocess.run([sys.executable, "-c", CHILD, f"{tmp}/m.sqlite"], capture_output=True, text=True,
                                 check=True).stdout.split()[-1]) / 1024
    bare = int(subprocess.run([sys.executable, "-c", BARE], capture_output=True, text=True, check=True).stdout) / 1024
    return [f"server idle with vision loaded: {rss:.0f} MB resident (target 150 MB; {rss / bare:.1f}x a bare "
            f"Python interpreter, {bare:.0f} MB)"]
