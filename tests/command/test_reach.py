"""Where the results go, and what LD_PRELOAD cannot reach (issue 26).

hpcshim run -o makes its directory and the missing parents (mkdir -p, one
rule with the shim: common/mkdirs.c), also when eight runs make the same
new one at once; a directory it cannot make is one `hpcshim run:` line and
exit status 2, and the program never starts.  The shim makes a missing
HPCSHIM_OUTPUT the same way.  A program the shim cannot be preloaded into
(a static executable; a set-user-ID, set-group-ID or capability-raising one
run by another user: AT_SECURE) gets one line saying so and why, then runs
unchanged (output, exit status), with no complaint about a missing result
afterwards.  Go: without cgo a program is static; with cgo it ends by a raw
exit_group, so its file is the periodic flush's (docs/reach.md)."""
import glob
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import SRC, BUILD, LIB, NOBODY, PRELOAD, WORKLOAD, Tap, main_thread, region, unprivileged_skip

t = Tap()
HPCSHIM = os.path.join(BUILD, "hpcshim")
tmp = tempfile.mkdtemp(prefix="hpcshim-reach-")
os.chmod(tmp, 0o755)  # the unprivileged runs below go through it
# The cases run as uid 65534 need root and a build that user can read.
UNPRIV = unprivileged_skip(LIB, WORKLOAD, HPCSHIM)
ROOT = UNPRIV is None
STATIC_WHY = ("is a static executable (no PT_INTERP program header), so no dynamic "
              "loader runs to read LD_PRELOAD")
UNCOUNTED = "; it runs uncounted (no result file)"


def env(extra=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("HPCSHIM_") and k != "LD_PRELOAD"}
    e.update(extra or {})
    return e


def run(argv, extra=None, cwd=None, user=None, umask=None):
    def pre():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if umask is not None:
            os.umask(umask)
        if user is not None:
            os.setgid(user[1])
            os.setgroups([])
            os.setuid(user[0])
    return subprocess.run(argv, env=env(extra), cwd=cwd or tmp, capture_output=True,
                          encoding="utf-8", errors="replace", timeout=300, preexec_fn=pre)


def hs(*args, **kw):
    return run([HPCSHIM] + list(args), **kw)


def results(d):
    return sorted(glob.glob(os.path.join(d, "hpcshim-*.json")))


def load(f):
    with open(f, encoding="utf-8") as fh:
        return json.load(fh)


def path(*parts):
    return os.path.join(tmp, *parts)


def world_dir(name):
    d = path(name)
    os.mkdir(d)
    os.chmod(d, 0o1777)
    return d


# ---- hpcshim run -o: made, parents too ------------------------------------
d = path("nested", "a", "b", "c")
p = hs("run", "-q", "-o", d, "--", WORKLOAD, "touch", "20")
t.eq((p.returncode, p.stdout, p.stderr), (0, "touched 20 pages\n", ""),
     "-o with three missing levels: the program runs as usual, nothing of ours on stderr")
files = results(d)
t.eq(len(files), 1, "-o with three missing levels: made, the result file inside")
if files:
    t.eq(region(main_thread(load(files[0])), "touch")["inclusive"]["page-faults"], 20,
         "-o with missing levels: the file counts the program's work")

p = hs("run", "-o", "rel/x/y", "--", WORKLOAD, "touch", "5")
t.ok(p.returncode == 0 and len(results(path("rel", "x", "y"))) == 1
     and "(hpcshim: rel/x/y/hpcshim-" in p.stderr,
     "-o relative and missing: made under the current directory, the summary reads it",
     p.stderr)

# Eight runs make the same new directory at once (the ranks of a job).
same = path("same", "new", "dir")
procs = [subprocess.Popen([HPCSHIM, "run", "-q", "-o", same, "--", WORKLOAD, "touch", "5"],
                          env=env(), cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          encoding="utf-8") for _ in range(8)]
done = [(pr.communicate(timeout=300), pr.returncode) for pr in procs]
t.ok(all(rc == 0 and out == "touched 5 pages\n" and err == "" for (out, err), rc in done),
     "8 concurrent runs with -o SAME/NEW/DIR: none fails, none prints a line of ours",
     "\n".join("rc %d err %r" % (rc, err) for (_, err), rc in done))
pids = {load(f)["process"]["pid"] for f in results(same)}
t.eq(len(pids), 8, "8 concurrent runs: 8 result files of 8 processes in the one directory")

# A path component that is a file: exit 2, one line, the program not run.
plain = path("plainfile")
open(plain, "w").close()
marker = path("ran-marker")
for out, what in ((os.path.join(plain, "sub", "dir"), "under a regular file"),
                  (plain, "naming a regular file")):
    p = hs("run", "-o", out, "--", "sh", "-c", "touch '%s'; echo ran" % marker)
    lines = p.stderr.splitlines()
    t.eq(p.returncode, 2, "-o %s: exit status 2" % what)
    t.ok(len(lines) == 1 and lines[0] == "hpcshim run: cannot create the output directory "
         "%s: Not a directory" % out,
         "-o %s: exactly one line, the path and the reason" % what, p.stderr)
    t.ok(p.stdout == "" and not os.path.exists(marker), "-o %s: the program did not run" % what)

if ROOT:
    locked = path("locked")
    os.mkdir(locked, 0o755)  # root's: nobody cannot make anything in it
    marks = world_dir("marks")
    marker = os.path.join(marks, "ran")
    out = os.path.join(locked, "new", "dir")
    p = hs("run", "-o", out, "--", "sh", "-c", "touch '%s'; echo ran" % marker, user=NOBODY)
    t.eq(p.returncode, 2, "nobody, -o in an unwritable place: exit status 2")
    t.eq(p.stderr, "hpcshim run: cannot create the output directory %s: Permission denied\n" % out,
         "nobody, -o in an unwritable place: exactly one line")
    t.ok(p.stdout == "" and not os.path.exists(marker) and os.listdir(locked) == [],
         "nobody, -o in an unwritable place: the program did not run, nothing made")
else:
    t.skip("-o in an unwritable place", UNPRIV)

# ---- the shim itself: HPCSHIM_OUTPUT made -------------------------------
base = path("preload")
os.mkdir(base)
argv = [WORKLOAD, "touch", "30", "exit", "4"]
bare = run(argv, cwd=base)
shim = run(argv, cwd=base, umask=0o027,
           extra={"LD_PRELOAD": PRELOAD.format(lib=LIB), "HPCSHIM_OUTPUT": "made/x/y",
                  "TMPDIR": base})
t.eq((shim.returncode, shim.stdout, shim.stderr), (bare.returncode, bare.stdout, bare.stderr),
     "HPCSHIM_OUTPUT missing: exit status, stdout and stderr as without the shim (no line)")
files = results(os.path.join(base, "made", "x", "y"))
t.ok(len(files) == 1 and results(base) == [],
     "HPCSHIM_OUTPUT missing: made, the file in it, none in the fallback", files)
if files:
    t.eq(region(main_thread(load(files[0])), "touch")["inclusive"]["page-faults"], 30,
         "HPCSHIM_OUTPUT missing: the file counts the program's work")
modes = [oct(os.stat(os.path.join(base, *parts)).st_mode & 0o7777)
         for parts in (("made",), ("made", "x"), ("made", "x", "y"))]
t.eq(modes, ["0o750"] * 3, "the shim's directories are 0777 less the umask (027)")

# ---- a static executable -------------------------------------------------
static = path("static")
with open(path("static.c"), "w") as f:
    f.write('#include <stdio.h>\n'
            'int main(int argc, char **argv)\n'
            '{\n\tprintf("static %d args\\n", argc - 1);\n'
            '\tfprintf(stderr, "static stderr\\n");\n\treturn 5;\n}\n')
b = subprocess.run(["cc", "-static", "-o", static, path("static.c")], capture_output=True,
                   encoding="utf-8", errors="replace")
if t.ok(b.returncode == 0, "cc -static builds (glibc's libc.a)", b.stderr):
    out = world_dir("static-out")
    bare = run([static, "a", "b"])
    p = hs("run", "-o", out, "--", static, "a", "b")
    t.eq((p.returncode, p.stdout), (bare.returncode, bare.stdout),
         "static: exit status 5 and stdout unchanged")
    t.eq(p.stderr, "hpcshim run: %s %s%s\n%s" % (static, STATIC_WHY, UNCOUNTED, bare.stderr),
         "static: one line of ours (why), then the program's own stderr; no 'no result file'")
    t.eq(results(out), [], "static: no result file")

    # Found in PATH as execvp finds it, and named by its path.
    bindir = path("bin")
    os.mkdir(bindir)
    shutil.copy(static, os.path.join(bindir, "static-prog"))
    p = hs("run", "-q", "-o", out, "--", "static-prog",
           extra={"PATH": bindir + ":" + os.environ.get("PATH", "")})
    t.eq((p.returncode, p.stderr.splitlines()[0] if p.stderr else ""),
         (5, "hpcshim run: %s %s%s" % (os.path.join(bindir, "static-prog"), STATIC_WHY,
                                       UNCOUNTED)),
         "static found in PATH (and -q): the line names the file execvp runs")

    # A script is judged by its interpreter.
    script = path("script")
    with open(script, "w") as f:
        f.write("#!%s -x\n" % static)
    os.chmod(script, 0o755)
    bare = run([script, "y"])
    p = hs("run", "-o", out, "--", script, "y")
    t.eq((p.returncode, p.stdout, p.stderr),
         (bare.returncode, bare.stdout,
          "hpcshim run: %s runs %s, which %s%s\n%s" % (script, static, STATIC_WHY, UNCOUNTED,
                                                       bare.stderr)),
         "a #! script with a static interpreter: the line says so; the run unchanged")

# ---- secure execution: set-user-ID, set-group-ID, file capabilities -------
def nosuid(d):
    return bool(os.statvfs(d).f_flag & os.ST_NOSUID)


if not ROOT:
    t.skip("set-ID programs run by another user", UNPRIV)
elif nosuid(tmp):
    t.skip("set-ID programs run by another user", "%s is on a nosuid mount" % tmp)
else:
    cases = [("suid", 0o4755, None,
              "is set-user-ID (owner uid 0, run by uid 65534)"),
             ("sgid", 0o2755, None,
              "is set-group-ID (group gid 0, run by gid 65534)")]
    if shutil.which("setcap"):
        cases.append(("fcaps", 0o755, "cap_net_raw+ep",
                      "has file capabilities (security.capability, run by uid 65534)"))
    else:
        t.skip("file capabilities", "setcap not installed (libcap2-bin)")
    argv = ["touch", "10", "exit", "6"]
    for name, mode, cap, why in cases:
        prog = path(name + "-workload")
        shutil.copy(WORKLOAD, prog)
        os.chown(prog, 0, 0)
        os.chmod(prog, mode)
        if cap and subprocess.run(["setcap", cap, prog], capture_output=True).returncode:
            t.skip(name, "setcap refused here")
            continue
        out = world_dir(name + "-out")
        bare = run([prog] + argv, user=NOBODY)
        p = hs("run", "-o", out, "--", prog, *argv, user=NOBODY)
        t.eq((p.returncode, p.stdout), (6, "touched 10 pages\nexit 6\n"),
             "%s run by nobody: exit status and stdout as without hpcshim" % name)
        t.eq((bare.returncode, bare.stdout), (6, "touched 10 pages\nexit 6\n"),
             "%s run by nobody without hpcshim: the same" % name)
        t.eq(p.stderr, "hpcshim run: %s %s, so it runs with AT_SECURE and the dynamic loader "
             "ignores LD_PRELOAD%s\n" % (prog, why, UNCOUNTED),
             "%s run by nobody: exactly one line, why" % name)
        t.eq(results(out), [], "%s run by nobody: no result file" % name)
    # The caller root owns the file: no id changes, the program is counted.
    out = world_dir("suid-root-out")
    p = hs("run", "-q", "-o", out, "--", path("suid-workload"), *argv)
    t.ok(p.returncode == 6 and p.stderr == "" and len(results(out)) == 1,
         "the set-user-ID root program run by root: no line, counted", p.stderr)

# ---- Go ------------------------------------------------------------------
gone = [x for x in ("go", "cc") if not shutil.which(x)]
if gone:
    t.skip("Go programs", "%s not installed (tools/setup.sh installs golang-go)" % ", ".join(gone))
else:
    gowork = path("go")
    os.mkdir(gowork)
    goenv = {"HOME": gowork, "GOCACHE": os.path.join(gowork, "cache"),
             "GOPATH": os.path.join(gowork, "path"), "GOFLAGS": "-modcacherw",
             "GO111MODULE": "off", "TMPDIR": gowork}
    built = {}
    for name, cgo in (("gostatic", "0"), ("goflush", "1")):
        shutil.copy(os.path.join(SRC, "tests", "programs", name + ".go"), gowork)
        b = run(["go", "build", "-o", name, name + ".go"], cwd=gowork,
                extra=dict(goenv, CGO_ENABLED=cgo))
        if t.ok(b.returncode == 0, "%s (CGO_ENABLED=%s) builds" % (name, cgo), b.stderr[-2000:]):
            built[name] = os.path.join(gowork, name)

    if "gostatic" in built:
        prog = built["gostatic"]
        out = world_dir("gostatic-out")
        bare = run([prog, "x"])
        p = hs("run", "-o", out, "--", prog, "x")
        t.eq((bare.returncode, bare.stdout, bare.stderr),
             (3, "go static 1 args\n", "its own stderr line\n"), "Go without cgo runs bare")
        t.eq((p.returncode, p.stdout, p.stderr),
             (3, bare.stdout, "hpcshim run: %s %s%s\n%s" % (prog, STATIC_WHY, UNCOUNTED,
                                                           bare.stderr)),
             "Go without cgo under hpcshim run: one line (static), the run unchanged")
        t.eq(results(out), [], "Go without cgo: no result file")

    if "goflush" in built:
        prog = built["goflush"]
        out = world_dir("goflush-out")
        # The default HPCSHIM_FLUSH (1s): the program computes until the
        # flush has published, then leaves by exit_group.
        p = run([prog], extra={"LD_PRELOAD": PRELOAD.format(lib=LIB), "HPCSHIM_OUTPUT": out})
        t.eq((p.returncode, p.stdout, p.stderr), (0, "flushed true\n", ""),
             "Go with cgo past its first flush: runs and exits as usual")
        files = results(out)
        t.eq(len(files), 1, "Go with cgo: one file, the flush's")
        if files:
            doc = load(files[0])
            proc = doc["process"]
            t.eq((proc["complete"], proc["end"]), (False, "flush"),
                 "Go with cgo: the file says complete false, end flush")
            tc = doc["totals"].get("task-clock")
            t.ok(isinstance(tc, int) and tc > 0 and proc["wall_ns"] > 0,
                 "Go with cgo: the flush holds the counts up to it (task-clock %r ns)" % tc)
        t.eq([f for f in os.listdir(out) if not f.endswith(".json")], [],
             "Go with cgo: no temporary or marker file left")

        out = world_dir("goquick-out")
        p = run([prog, "quick"], extra={"LD_PRELOAD": PRELOAD.format(lib=LIB),
                                        "HPCSHIM_OUTPUT": out, "HPCSHIM_FLUSH": "3600s"})
        t.eq((p.returncode, p.stdout, p.stderr), (0, "quick true\n", ""),
             "Go with cgo ending before its first flush: runs as usual")
        t.eq(os.listdir(out), [], "Go with cgo ending before its first flush: no file at all")

        # Reachable: hpcshim run says nothing of reach.
        out = world_dir("goflush-run-out")
        p = hs("run", "-q", "-o", out, "--", prog)
        t.eq((p.returncode, p.stdout, p.stderr), (0, "flushed true\n", ""),
             "Go with cgo under hpcshim run -q: no line of ours (the shim reaches it)")

shutil.rmtree(tmp, ignore_errors=True)
t.done()
