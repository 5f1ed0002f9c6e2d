"""The job the tests of hpcshim convert read (tests/command/test_convert*.py):
ranks of the workload with nested regions, threads and HPCSHIM_TRACE, in
one directory."""
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import BUILD, WORKLOAD, run  # noqa: E402

HPCSHIM = os.path.join(BUILD, "hpcshim")
EVENTS = "page-faults,task-clock"


def make_job(tmp, ranks=3, trace="1000", steps=None):
    """Runs ranks processes into tmp/job; returns (the directory, their
    documents in rank order)."""
    job = os.path.join(tmp, "job")
    os.makedirs(job, exist_ok=True)
    steps = steps or ["nested", "30", "10", "threads", "3", "40", "touch", "7", "busy", "20"]
    env = {"HPCSHIM_EVENTS": EVENTS}
    if trace:
        env["HPCSHIM_TRACE"] = trace
    for rank in range(ranks):
        e = dict(env, OMPI_COMM_WORLD_RANK=str(rank))
        run([WORKLOAD] + steps, outdir=job, env=e)
    docs = [json.load(open(f)) for f in sorted(glob.glob(job + "/hpcshim-*.json"))]
    docs.sort(key=lambda d: d["process"]["rank"])
    return job, docs


def convert(*args):
    return subprocess.run([HPCSHIM, "convert"] + list(args), capture_output=True,
                          encoding="utf-8", errors="replace")
