"""Processes and exit paths: fork children write their own results, exec
writes the old image's results and the new image is a new entry, and every
way of ending (return, exit, _exit, exit from a thread, main's
pthread_exit) writes complete results with the program's status intact."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, workload, region, main_thread

t = Tap()


def by_command(docs):
    return {tuple(d["process"]["command"][1:]): d for d in docs}


def regions(doc):
    return {r["name"]: r["inclusive"]["page-faults"] for th in doc["threads"] for r in th["regions"]}


# ---- fork -------------------------------------------------------------------
r = workload("touch", 100, "fork", 300, "touch", 50)
bare = workload("touch", 100, "fork", 300, "touch", 50, preload=False)
t.eq((r.rc, r.out), (bare.rc, bare.out), "fork: stdout and status unchanged")
t.eq(len(r.docs), 2, "fork: parent and child each write a file")
parent = [d for d in r.docs if "child" not in regions(d)]
child = [d for d in r.docs if "child" in regions(d)]
if t.ok(len(parent) == 1 and len(child) == 1, "fork: one parent and one child result"):
    p, c = parent[0], child[0]
    t.eq(regions(p), {"touch": 150}, "fork: parent's regions unaffected by the child")
    t.eq(regions(c), {"child": 300}, "fork: child's own region, exact")
    t.eq(c["process"]["ppid"], p["process"]["pid"], "fork: child's ppid is the parent")
    t.ok(c["process"]["pid"] != p["process"]["pid"], "fork: child has its own pid")
    t.eq([th["tid"] for th in c["threads"]], [c["process"]["pid"]], "fork: child's one thread")
    t.ok(c["process"]["start_ns"] > p["process"]["start_ns"], "fork: child starts its own clock")

# ---- vfork, posix_spawn, system ----------------------------------------
r = workload("vfork", "touch", 10)
t.eq(r.out.splitlines()[0], "vfork child status 7", "vfork: child's _exit status intact")
t.eq(len(r.docs), 1, "vfork: the child (shared memory) writes nothing")
t.eq(regions(r.doc), {"touch": 10}, "vfork: parent's results intact")

r = workload("spawn", 200)
cmds = by_command(r.docs)
t.ok(("touch", "200") in cmds, "posix_spawn: spawned program counted as its own process")
if ("touch", "200") in cmds:
    t.eq(regions(cmds[("touch", "200")]), {"touch": 200}, "posix_spawn: its region exact")

r = workload("system", 150)
t.eq(r.out.strip(), "system status 0", "system(): status intact")
cmds = by_command(r.docs)
t.ok(("touch", "150") in cmds, "system(): the command's process counted")
t.ok(any(c and c[0] == "-c" for c in cmds), "system(): the shell counted too")

# ---- exec -----------------------------------------------------------------
r = workload("touch", 10, "exec", "touch", 20, "exec", "touch", 30)
bare = workload("touch", 10, "exec", "touch", 20, "exec", "touch", 30, preload=False)
t.eq((r.rc, r.out), (bare.rc, bare.out), "exec: stdout and status unchanged")
t.eq(len(r.docs), 3, "exec: one result per image")
gens = sorted((d["process"]["exec_generation"], d["process"]["end"], regions(d)["touch"]) for d in r.docs)
t.eq(gens, [(0, "exec", 10), (1, "exec", 20), (2, "exit", 30)],
     "exec: generations 0,1,2 with the image's own counts and how it ended")
t.eq(len({d["process"]["pid"] for d in r.docs}), 1, "exec: all images share the pid")

# The list forms go through the same accounting.
for form in ("l", "lp", "le"):
    r = workload("touch", 2, "execform", form, 9)
    gens = sorted((d["process"]["exec_generation"], d["process"]["end"], regions(d).get("touch"))
                  for d in r.docs)
    t.eq(gens, [(0, "exec", 2), (1, "exit", 9)], "exec%s: both images, generations 0 and 1" % form)

# A failed exec: this image's results are already written; the next exec
# is still the next generation of the pid.
r = workload("touch", 4, "badexec", "touch", 6, "exec", "touch", 8)
t.eq(r.rc, 0, "failed exec: the program goes on")
gens = sorted((d["process"]["exec_generation"], regions(d).get("touch")) for d in r.docs)
t.eq(gens, [(0, 4), (1, 8)], "failed exec: image 0 written at the attempt, image 1 after the real exec")

# ---- exit paths ------------------------------------------------------------
for steps, code, desc in (
    (("touch", 40, "_exit", 4), 4, "_exit"),
    (("touch", 40, "exit", 3), 3, "exit()"),
    (("touch", 40), 0, "return from main"),
):
    r = workload(*steps)
    bare = workload(*steps, preload=False)
    t.eq((r.rc, r.out), (code, bare.out), "%s: status %d and stdout intact" % (desc, code))
    t.eq(len(r.docs), 1, "%s: results written" % desc)
    if r.docs:
        t.eq(r.doc["process"]["complete"], True, "%s: complete" % desc)
        t.eq(regions(r.doc), {"touch": 40}, "%s: counts exact" % desc)

r = workload("thread_exit", 70, 5)
t.eq(r.rc, 5, "exit() from a thread while main blocks: status")
t.eq(regions(r.doc), {"work": 70}, "exit() from a thread: the thread's counts")
t.eq(r.doc["process"]["complete"], True, "exit() from a thread: complete")
t.ok(all(th["alive_at_exit"] for th in r.doc["threads"]), "exit() from a thread: both threads read at exit")

r = workload("main_pexit", 80)
t.eq(r.rc, 0, "main calls pthread_exit: status 0")
t.eq(regions(r.doc), {"work": 80}, "main calls pthread_exit: last thread's counts")
t.eq(r.doc["uncovered_threads"], [], "main calls pthread_exit: the exiting thread is not 'uncovered'")
t.done()
