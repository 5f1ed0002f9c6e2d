"""A hostile neighbour (issue 28): what another user plants in a shared
(1777) output directory, and a set-user-ID program, never make the shim or
the tools block, follow a link, truncate or overwrite a file, or take
another number; result files are the owner's alone (0600) unless
HPCSHIM_UMASK says otherwise; `-o` onto a device writes through it.

The plants are made by a second unprivileged user (uid 65533) while the
program runs as nobody (65534), or as root where the finding is root's."""
import glob
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import Tap, run, workload, LIB, BUILD, WORKLOAD, NOBODY, unprivileged_skip  # noqa: E402

t = Tap()
os.umask(0o022)  # the usual umask: 0644 files before the fix
PLANTER = (65533, 65533)
HPCSHIM = os.path.join(BUILD, "hpcshim")


MADE = []  # every temporary directory of this test, removed at the end


def mkd(prefix):
    d = tempfile.mkdtemp(prefix=prefix)
    MADE.append(d)
    return d


def as_user(user, fn):
    """fn() in a child process running as user; its exception as a failure."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgid(user[1])
            os.setgroups([])
            os.setuid(user[0])
            fn()
            os._exit(0)
        except BaseException:
            os._exit(1)
    return os.waitpid(pid, 0)[1] == 0


def shared_dir():
    d = mkd("hpcshim-hostile-")
    os.chmod(d, 0o1777)
    return d


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def gens_of(d):
    out = []
    for f in sorted(glob.glob(os.path.join(d, "hpcshim-*.json"))):
        with open(f) as fh:
            doc = json.load(fh)
        out.append(doc["process"]["exec_generation"])
    return sorted(out)


# ---- modes -----------------------------------------------------------------
d = shared_dir()
r = workload("touch", 1, outdir=d)
files = glob.glob(os.path.join(d, "hpcshim-*.json"))
t.eq([mode(f) for f in files], [0o600], "result file 0600 under umask 022 (holds the command line)")


def new_file(before):
    """The one result file in d that was not there before (a file's mtime
    has the kernel's tick: two runs within it sort either way)."""
    new = set(glob.glob(os.path.join(d, "hpcshim-*.json"))) - before
    return new.pop() if len(new) == 1 else None


before = set(files)
r = workload("touch", 1, outdir=d, env={"HPCSHIM_UMASK": "022"})
f = new_file(before)
t.eq(f and mode(f), 0o644, "HPCSHIM_UMASK=022: 0644")
before = set(glob.glob(os.path.join(d, "hpcshim-*.json")))
r = workload("touch", 1, outdir=d, env={"HPCSHIM_UMASK": "8x"})
f = new_file(before)
t.ok(len(r.shim_lines()) == 1 and "HPCSHIM_UMASK" in r.shim_lines()[0],
     "a bad HPCSHIM_UMASK: one line: %r" % r.shim_lines())
t.eq((r.rc, f and mode(f)), (0, 0o600), "a bad HPCSHIM_UMASK: the run unchanged, 0600")
# The fallback ($TMPDIR) when HPCSHIM_OUTPUT cannot take the file.
blocker = os.path.join(d, "notadir")
open(blocker, "w").close()
fb = shared_dir()
r = run([WORKLOAD, "touch", "1"], outdir=fb, env={"HPCSHIM_OUTPUT": os.path.join(blocker, "x")})
files = glob.glob(os.path.join(fb, "hpcshim-*.json"))
t.eq([mode(f) for f in files], [0o600], "the $TMPDIR fallback's file: 0600")
# The exec marker, left behind by an image whose exec failed (it wrote its
# file and passed the marker before the exec).
m = shared_dir()
r = run([WORKLOAD, "touch", "1", "badexec"], outdir=m)
markers = glob.glob(os.path.join(m, ".hpcshim-*.exec*"))
t.ok(markers and all(mode(x) == 0o600 for x in markers),
     "the exec marker: 0600: %r" % [(os.path.basename(x), oct(mode(x))) for x in markers])
t.eq([x for x in os.listdir(m) if x.endswith(".tmp")], [], "no temporary of the marker left")


# ---- the exec-generation marker ---------------------------------------------
def host():
    return socket.gethostname().replace("/", "_")


def start_time(pid):
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[19]


def exec_run(user, plant, desc, timeout=30):
    """workload as user: a file, a pause, exec, a second file.  During the
    pause plant(prefix) makes its files; the run must end, with
    generations 0 and 1."""
    d = shared_dir()
    env = dict(os.environ, LD_PRELOAD=LIB, HPCSHIM_OUTPUT=d, TMPDIR=d)

    def pre():
        if user:
            os.setgid(user[1])
            os.setgroups([])
            os.setuid(user[0])
    p = subprocess.Popen([WORKLOAD, "touch", "1", "sleep", "3", "500000", "exec", "touch", "2"],
                         env=env, cwd=d, preexec_fn=pre, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    time.sleep(0.3)
    prefix = os.path.join(d, ".hpcshim-%s-%d-%s" % (host(), p.pid, start_time(p.pid)))
    plant(prefix)
    try:
        p.wait(timeout=timeout)
        ended = True
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        ended = False
    t.ok(ended, "%s: the program does not block at its exec" % desc)
    t.eq(gens_of(d), [0, 1], "%s: generations 0 and 1" % desc)
    return d


def fifo(path):
    return lambda: os.mkfifo(path, 0o666)


why = unprivileged_skip()
if why:
    t.skip("markers planted by another user", why)
else:
    exec_run(NOBODY, lambda pre: as_user(PLANTER, fifo(pre + ".exec.tmp")),
             "a FIFO at .exec.tmp")
    exec_run(NOBODY, lambda pre: as_user(PLANTER, fifo(pre + ".exec")),
             "a FIFO at .exec (non-root program)")

    def regular(path, text):
        def f():
            with open(path, "w") as fh:
                fh.write(text)
        return f
    d = exec_run(NOBODY, lambda pre: as_user(PLANTER, regular(pre + ".exec", "41\n")),
                 "another user's marker saying 41")
    left = [x for x in os.listdir(d) if x.startswith(".hpcshim-")]
    t.eq(len(left), 1, "only the planted marker is left (ours is read and removed): %r" % left)

# A hard link at .exec.tmp to a file root owns, root's program: not
# truncated, not written.
precious_dir = mkd("hpcshim-precious-")
precious = os.path.join(precious_dir, "shadow")
with open(precious, "w") as f:
    f.write("root's own\n")
os.chmod(precious, 0o600)


def link_plant(pre):
    try:
        os.link(precious, pre + ".exec.tmp")
    except OSError as e:  # another file system: nothing to link
        t.diag("cannot link: %s" % e)


d = exec_run(None, link_plant, "a hard link at .exec.tmp (root's program)")
with open(precious) as f:
    t.eq(f.read(), "root's own\n", "the linked file is not truncated nor overwritten")

# A symbolic link planted at the result's own name, to root's file: link(2)
# does not follow it; the result takes the next name, the file is intact.
d = shared_dir()
env = dict(os.environ, LD_PRELOAD=LIB, HPCSHIM_OUTPUT=d, TMPDIR=d, HPCSHIM_FLUSH="off")
p = subprocess.Popen([WORKLOAD, "sleep", "3", "300000", "touch", "1"], env=env, cwd=d,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.3)
os.symlink(precious, os.path.join(d, "hpcshim-%s-%d.json" % (host(), p.pid)))
p.wait(timeout=60)
with open(precious) as f:
    t.eq(f.read(), "root's own\n", "a link at the result's name: its target untouched")
t.ok(os.path.exists(os.path.join(d, "hpcshim-%s-%d-1.json" % (host(), p.pid))),
     "a link at the result's name: the result under the next name")

# ---- -o onto what is not a regular file ----------------------------------------
res = shared_dir()
workload("touch", 1, outdir=res)
workload("touch", 2, outdir=res)
devdir = mkd("hpcshim-dev-")
if os.geteuid() != 0:
    t.skip("merge -o onto a character device", "needs root (mknod)")
else:
    null = os.path.join(devdir, "null")
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a copy of /dev/null
    p = subprocess.run([HPCSHIM, "merge", "-o", null, res], capture_output=True, text=True, timeout=60)
    t.eq(p.returncode, 0, "merge -o onto a character device: exit 0 (%s)" % p.stderr.strip())
    t.ok(stat.S_ISCHR(os.lstat(null).st_mode) and os.lstat(null).st_rdev == os.makedev(1, 3),
         "merge -o DEV: the device is still the device, not replaced by a file")
    t.eq(sorted(os.listdir(devdir)), ["null"], "merge -o DEV: no temporary left beside it")
# A FIFO (a process substitution, `-o >(jq .)`): the document goes through it.
fifo_out = os.path.join(devdir, "pipe")
os.mkfifo(fifo_out)
got = {}


def reader():
    with open(fifo_out) as fh:
        got["text"] = fh.read()


th = threading.Thread(target=reader, daemon=True)
th.start()
p = subprocess.run([HPCSHIM, "merge", "-o", fifo_out, res], capture_output=True, text=True, timeout=60)
th.join(60)
t.ok(p.returncode == 0 and json.loads(got.get("text", "null") or "null") is not None
     and stat.S_ISFIFO(os.lstat(fifo_out).st_mode),
     "merge -o FIFO: the job document comes out of the FIFO, which stays a FIFO")
p = subprocess.run([HPCSHIM, "merge", "-o", devdir, res], capture_output=True, text=True, timeout=60)
lines = [l for l in p.stderr.splitlines() if l]
t.ok(p.returncode != 0 and len(lines) == 1 and "directory" in lines[0],
     "merge -o DIR: refused in one line: %r" % lines)
# A descriptor's name: stdout a file (the shell's `>`), then a pipe.  Never
# a file made beside it (in /dev or /proc).
with open(os.path.join(devdir, "stdout.json"), "w") as fh:
    p = subprocess.run([HPCSHIM, "merge", "-o", "/dev/fd/1", res], stdout=fh,
                       stderr=subprocess.PIPE, text=True, timeout=60)
with open(os.path.join(devdir, "stdout.json")) as fh:
    text = fh.read()
t.ok(p.returncode == 0 and text.startswith("{") and json.loads(text)["schema"].startswith("hpcshim-job/"),
     "merge -o /dev/fd/1, stdout a file: the job document in it (%s)" % p.stderr.strip())
p = subprocess.run([HPCSHIM, "merge", "-o", "/proc/self/fd/1", res], capture_output=True,
                   text=True, timeout=60)
t.ok(p.returncode == 0 and p.stdout.startswith("{"),
     "merge -o /proc/self/fd/1, stdout a pipe: the job document through it (%s)" % p.stderr.strip())
out = os.path.join(devdir, "job.json")
p = subprocess.run([HPCSHIM, "merge", "-o", out, res], capture_output=True, text=True, timeout=60)
t.eq((p.returncode, mode(out)), (0, 0o600), "merge -o FILE: a regular file, 0600 (umask 022)")
# html and trace write their -o the same way: through a device, and a link
# planted at the name is replaced, its target never written.
for cmd in ("html", "trace"):
    if os.geteuid() == 0:
        p = subprocess.run([HPCSHIM, cmd, "-o", null, res], capture_output=True, text=True, timeout=60)
        t.ok(p.returncode == 0 and stat.S_ISCHR(os.lstat(null).st_mode)
             and sorted(os.listdir(devdir)).count("null") == 1,
             "%s -o DEV: written through, the device still the device (%s)" % (cmd, p.stderr.strip()))
    victim = os.path.join(devdir, "victim-" + cmd)
    with open(victim, "w") as fh:
        fh.write("precious\n")
    link = os.path.join(devdir, cmd + ".out")
    os.symlink(victim, link)
    p = subprocess.run([HPCSHIM, cmd, "-o", link, res], capture_output=True, text=True, timeout=60)
    with open(victim) as fh:
        kept = fh.read()
    t.ok(p.returncode == 0 and kept == "precious\n" and not os.path.islink(link)
         and mode(link) == 0o600,
         "%s -o onto a planted link: the link replaced by the output (0600), its target untouched" % cmd)


# ---- the tools and a FIFO among the results ----------------------------------
rep = shared_dir()
workload("touch", 1, outdir=rep)
os.mkfifo(os.path.join(rep, "hpcshim-planted.json"))
try:
    p = subprocess.run([HPCSHIM, "report", rep], capture_output=True, text=True, timeout=30)
    ended = True
except subprocess.TimeoutExpired:
    ended = False
t.ok(ended, "report DIR with a FIFO named hpcshim-*.json: does not block")
if ended:
    lines = [l for l in p.stderr.splitlines() if l]
    t.ok(len(lines) == 1 and "hpcshim-planted.json: not a regular file" in lines[0]
         and "touch" in p.stdout,
         "report DIR: the FIFO skipped in one line, the result reported (rc %d, %r)"
         % (p.returncode, lines))


def children(pid):
    kids = []
    for e in os.listdir("/proc"):
        if e.isdigit():
            try:
                with open("/proc/%s/stat" % e) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(e))
            except OSError:
                pass
    return kids


def wait_child(p, comm=None):
    """p's child once it exists (and, given comm, once it runs that
    program), polled until a deadline far beyond any load: at load 70 a
    child took more than the 5 s this once allowed, and the test went on
    without one."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and p.poll() is None:
        kids = children(p.pid)
        if kids and (comm is None or proc_comm(kids[0]) == comm):
            return kids[0]
        time.sleep(0.01)
    return None


def reapable(pid):
    """Whether pid has ended as wait sees it: a zombie with no thread
    left.  Its main thread shows Z while another (the shim's flush
    thread) is still on its way out, and wait does not report it until
    the last one is gone: a signal run forwards in between reaches a
    child that is ending, and is lost."""
    try:
        return proc_state(pid) == "Z" and os.listdir("/proc/%d/task" % pid) == [str(pid)]
    except OSError:
        return False


def proc_comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return None


def proc_state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


why = unprivileged_skip()
if why:
    t.skip("run -o SHARED with a FIFO planted by another user", why)
else:
    sh = shared_dir()
    p = subprocess.Popen([HPCSHIM, "run", "-o", sh, WORKLOAD, "sleep", "2", "500000"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    kid = wait_child(p)
    if kid:
        as_user(PLANTER, fifo(os.path.join(sh, "hpcshim-%s-%d-x9.json" % (host(), kid))))
    try:
        err = p.communicate(timeout=30)[1]
        ended = True
    except subprocess.TimeoutExpired:
        p.kill()
        err = p.communicate()[1]
        ended = False
    t.ok(kid and ended, "run -o SHARED with a FIFO at the child's name: does not block (child %s)" % kid)
    t.ok(ended and p.returncode == 0 and "slept" not in err and "sleep" in err,
         "run -o SHARED: the summary is the child's own file (rc %s)" % p.returncode)

# SIGTERM to run once its child has ended (not reaped: run is stopped): it
# is run's own, and ends it, not forwarded to a child that is no more.  The
# child waits on its stdin, so it ends only after run is stopped, however
# loaded the machine is.
p = subprocess.Popen([HPCSHIM, "run", "-q", "--", "sh", "-c", "read x"],
                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, cwd=mkd("hpcshim-term-"))
kid = wait_child(p, "sh")
t.ok(kid is not None, "run: its child sh found")
os.kill(p.pid, 19)  # SIGSTOP
# Each state polled until a deadline far beyond any load (at load 70 the
# child took more than the 10 s this once allowed, and the SIGTERM went to
# a child still alive): the test's point is the order, not the time.
deadline = time.monotonic() + 300
while proc_state(p.pid) != "T" and time.monotonic() < deadline:  # stopped: /proc says T
    time.sleep(0.01)
p.stdin.write(b"go\n")
p.stdin.close()
while kid is not None and not reapable(kid) and time.monotonic() < deadline:
    time.sleep(0.01)
stopped_first = proc_state(p.pid) == "T" and kid is not None and reapable(kid)
os.kill(p.pid, 15)  # SIGTERM
os.kill(p.pid, 18)  # SIGCONT
try:
    rc = p.wait(timeout=30)
except subprocess.TimeoutExpired:
    p.kill()
    rc = p.wait()
t.eq((stopped_first, rc), (True, -15),
     "run: SIGTERM after the child ended (run stopped, its child a zombie) ends run by SIGTERM")


# ---- secure execution (AT_SECURE) -------------------------------------------
# A set-user-ID program (of uid 65533) linked with the shim (the way
# /etc/ld.so.preload or a trusted library reaches one: LD_PRELOAD cannot),
# run by nobody with HPCSHIM_* set: dormant, one line, no file, no preset
# read.
CC = shutil.which("cc") or shutil.which("gcc")
why = unprivileged_skip()
if why or not CC:
    t.skip("secure execution", why or "no C compiler")
else:
    sd = mkd("hpcshim-secure-")
    os.chmod(sd, 0o755)
    with open(os.path.join(sd, "p.c"), "w") as f:
        f.write("int main(void) { return 3; }\n")
    prog = os.path.join(sd, "suid")
    plain = os.path.join(sd, "plain")
    subprocess.run([CC, "-o", prog, os.path.join(sd, "p.c"), "-Wl,--no-as-needed", LIB,
                    "-Wl,-rpath," + os.path.dirname(LIB)], check=True)
    shutil.copy(prog, plain)
    os.chown(prog, PLANTER[0], PLANTER[1])
    os.chmod(prog, 0o4755)
    # The secret: a file only the set-user-ID owner can read, reached
    # through a preset name in a directory the invoker made.
    secret = os.path.join(sd, "shadow")
    with open(secret, "w") as f:
        f.write("root:SECRETHASH:19000:0:99999:7:::\n")
    os.chown(secret, PLANTER[0], PLANTER[1])
    os.chmod(secret, 0o600)
    pdir = mkd("hpcshim-presets-")
    os.chmod(pdir, 0o755)
    os.symlink(secret, os.path.join(pdir, "evil.preset"))
    env = {"HPCSHIM_PRESET_PATH": pdir, "HPCSHIM_PRESET": "cpi"}
    out = shared_dir()
    r = run([plain], outdir=out, preload=False, user=NOBODY, env=env)
    t.eq((r.rc, len(r.docs)), (3, 1), "control: the same program, not set-user-ID, is counted")
    out = shared_dir()
    r = run([prog], outdir=out, preload=False, user=NOBODY, env=env)
    lines = r.shim_lines()
    t.eq(r.rc, 3, "set-user-ID program: runs unchanged")
    t.eq(os.listdir(out), [], "set-user-ID program: no file in HPCSHIM_OUTPUT (nor anywhere)")
    t.ok(len(lines) == 1 and "secure execution" in lines[0],
         "set-user-ID program: one line says it is dormant: %r" % lines)
    t.ok("SECRETHASH" not in r.err, "set-user-ID program: the preset path is not read")
    r = subprocess.run([prog], capture_output=True, text=True, cwd=sd,
                       env={"PATH": "/usr/bin:/bin"},
                       preexec_fn=lambda: (os.setgid(65534), os.setgroups([]), os.setuid(65534)))
    t.eq(r.stderr, "", "set-user-ID program with no HPCSHIM_* variable: silent (a system-wide preload)")


# ---- the MPI plugin, not from the current directory -------------------------
MPICC = shutil.which("mpicc.openmpi") or shutil.which("mpicc")
if not MPICC:
    t.skip("MPI plugin after a chdir", "no mpicc")
else:
    md = mkd("hpcshim-plugin-")
    os.chmod(md, 0o755)
    with open(os.path.join(md, "m.c"), "w") as f:
        f.write("#include <mpi.h>\n#include <unistd.h>\n"
                "int main(int c, char **v) { MPI_Init(&c, &v);\n"
                "  if (chdir(v[1])) return 9;\n  MPI_Finalize(); return 0; }\n")
    with open(os.path.join(md, "evil.c"), "w") as f:
        f.write("#include <fcntl.h>\n#include <unistd.h>\n"
                "__attribute__((constructor)) static void pwn(void)\n"
                "{ int fd = open(\"PWNED\", O_WRONLY | O_CREAT, 0644); if (fd >= 0) close(fd); }\n")
    evil = os.path.join(md, "evil")
    os.mkdir(evil)
    subprocess.run([MPICC, "-o", os.path.join(md, "m"), os.path.join(md, "m.c")], check=True)
    for impl in ("openmpi", "mpich"):
        subprocess.run([CC or "cc", "-shared", "-fPIC", "-o",
                        os.path.join(evil, "hpcshim-mpi-%s.so" % impl), os.path.join(md, "evil.c")],
                       check=True)
    env = dict(os.environ, LD_PRELOAD="./" + os.path.basename(LIB), HPCSHIM_OUTPUT=md,
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", TMPDIR=md,
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    for k in list(env):
        if k.startswith(("HPCSHIM_", "PMIX_", "PMI_", "SLURM_")) and k != "HPCSHIM_OUTPUT":
            del env[k]
    p = subprocess.run([os.path.join(md, "m"), evil], env=env, cwd=os.path.dirname(LIB),
                       capture_output=True, text=True, timeout=120)
    t.ok(not os.path.exists(os.path.join(evil, "PWNED")),
         "LD_PRELOAD=./libhpcshim.so, chdir before MPI_Finalize: no plugin from the new "
         "current directory (rc %d)" % p.returncode)
    t.eq(p.returncode, 0, "the MPI program runs unchanged")
    t.eq(len(glob.glob(os.path.join(md, "hpcshim-job-*.json"))), 1,
         "the real plugin, from the shim's own directory, wrote the job document")
    shutil.rmtree(md, ignore_errors=True)

# ---- the shipped data, not from the program's directory ----------------------
# The shim under a name dladdr cannot place (no ".so"): the old search fell
# back to /proc/self/exe, the program's directory, and read its
# data/presets.
pd = mkd("hpcshim-progdir-")
os.makedirs(os.path.join(pd, "data", "presets"))
shutil.copy(WORKLOAD, os.path.join(pd, "workload"))
with open(os.path.join(pd, "data", "presets", "evil.preset"), "w") as f:
    f.write("garbage from the program's directory\n")
libdir = mkd("hpcshim-lib-")
shutil.copy(LIB, os.path.join(libdir, "shimlib"))
r = run([os.path.join(pd, "workload"), "touch", "1"], preload=False,
        env={"LD_PRELOAD": os.path.join(libdir, "shimlib"), "HPCSHIM_PRESET": "cpi"})
t.ok(r.rc == 0 and "garbage" not in r.err,
     "the shim named without .so: no preset read from the program's directory: %r"
     % r.shim_lines())
shutil.rmtree(pd, ignore_errors=True)
shutil.rmtree(libdir, ignore_errors=True)

for d_ in MADE:
    shutil.rmtree(d_, ignore_errors=True)
t.done()
