"""Fatal signals: results so far are written with complete=false, and the
process dies exactly as it would have (same signal); the program's own
handlers, SIG_IGN, masks and sigaltstack keep working."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, workload, run, WORKLOAD

t = Tap()
# A program started in the background by a non-interactive shell (make
# check run with `&`) inherits SIGINT and SIGQUIT ignored, and raise()
# then does nothing, with or without the shim: the signals' defaults
# here, so that the truth below is the one the test states.
for s in (signal.SIGINT, signal.SIGQUIT):
    signal.signal(s, signal.SIG_DFL)


def regions(doc):
    return {r["name"]: r["inclusive"]["page-faults"] for th in doc["threads"] for r in th["regions"]}


def same_as_bare(steps, desc):
    r = workload(*steps)
    bare = workload(*steps, preload=False)
    t.eq((r.rc, r.out), (bare.rc, bare.out), "%s: status and stdout as without the shim" % desc)
    return r


for steps, sig, desc in (
    (("touch", 10, "segv"), signal.SIGSEGV, "SIGSEGV (null write)"),
    (("touch", 10, "abort"), signal.SIGABRT, "abort()"),
    (("touch", 10, "raise", int(signal.SIGTERM)), signal.SIGTERM, "SIGTERM"),
    (("touch", 10, "raise", int(signal.SIGINT)), signal.SIGINT, "SIGINT"),
    (("touch", 10, "raise", int(signal.SIGQUIT)), signal.SIGQUIT, "SIGQUIT"),
    (("touch", 10, "raise", int(signal.SIGBUS)), signal.SIGBUS, "SIGBUS"),
    (("touch", 10, "mask", int(signal.SIGTERM)), signal.SIGTERM, "SIGTERM blocked, then unblocked"),
):
    r = same_as_bare(steps, desc)
    t.eq(r.rc, -sig, "%s: killed by the same signal" % desc)
    if t.eq(len(r.docs), 1, "%s: results written" % desc):
        p = r.doc["process"]
        t.eq((p["complete"], p["end"], p["signal"]), (False, "signal", int(sig)),
             "%s: complete false, end signal, signal number" % desc)
        t.eq(regions(r.doc), {"touch": 10}, "%s: counts gathered so far" % desc)

# Core dumps: the shell reports "(core dumped)" exactly when the kernel
# wrote one; it must be the same with and without the shim.
for steps, desc in ((("segv",), "SIGSEGV"), (("abort",), "SIGABRT"),
                    (("raise", int(signal.SIGQUIT)), "SIGQUIT"),
                    (("raise", int(signal.SIGTERM)), "SIGTERM (no core)")):
    cmd = "ulimit -c unlimited; %s %s; echo status $?" % (WORKLOAD, " ".join(map(str, steps)))
    shim = run(["bash", "-c", cmd], cores=True)
    bare = run(["bash", "-c", cmd], preload=False, cores=True)
    t.eq(("core dumped" in shim.err, shim.out), ("core dumped" in bare.err, bare.out),
         "%s: same status and same core-dump behaviour (core: %s)" % (desc, "core dumped" in bare.err))

r = same_as_bare(("touch", 10, "catch", int(signal.SIGTERM), 3), "program's SA_SIGINFO handler")
t.ok(r.out.endswith("caught %d code -6\n" % signal.SIGTERM), "SA_SIGINFO handler ran with its siginfo (SI_TKILL)")
t.eq((r.rc, r.doc["process"]["complete"], r.doc["process"]["end"]), (3, True, "exit"),
     "handler's exit(3): complete results")

r = same_as_bare(("touch", 10, "rethrow", int(signal.SIGINT)), "handler that restores SIG_DFL and re-raises")
t.eq(r.rc, -signal.SIGINT, "re-raise after SIG_DFL: dies of SIGINT")
t.eq(r.doc["process"]["complete"], False, "re-raise: results marked incomplete")

r = same_as_bare(("touch", 10, "ignore", int(signal.SIGINT), "touch", 5), "SIG_IGN")
t.eq(r.rc, 0, "SIG_IGN: the signal is ignored")
t.eq(regions(r.doc), {"touch": 15}, "SIG_IGN: counting goes on")

r = same_as_bare(("touch", 10, "altstack"), "sigaltstack + SA_ONSTACK SIGSEGV handler")
t.ok("altstack 1" in r.out, "program's handler ran on its alternate stack")
t.eq(r.rc, 9, "program's handler decided the exit status")

r = same_as_bare(("query", int(signal.SIGTERM), "ignore", int(signal.SIGTERM), "query", int(signal.SIGTERM)),
                 "sigaction() reports the program's view")
t.eq(r.out.splitlines()[0], "dfl 1", "SIG_DFL reported although the shim's handler is installed")
t.eq(r.out.splitlines()[-1], "dfl 0", "SIG_IGN reported after the program set it")
t.done()
