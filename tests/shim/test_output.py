"""Output robustness: an output directory that cannot be made (a file in
the way, no permission), is unwritable or full costs one 'hpcshim:' line
and the results go to $TMPDIR (a missing one is made: test_reach.py);
files are created safely and never overwrite anything; SIGKILL loses only
that process's file."""
import glob
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, workload, LIB, WORKLOAD, main_thread, region, unprivileged_skip

t = Tap()
STEPS = ("touch", 200, "exit", 4)


def check_fallback(r, desc, reason):
    lines = r.shim_lines()
    t.eq(r.rc, 4, "%s: exit code unchanged" % desc)
    t.eq(len(lines), 1, "%s: one hpcshim line" % desc)
    t.ok(lines and reason in lines[0] and "instead" in lines[0],
         "%s: the line gives the reason and the fallback: %r" % (desc, lines))
    t.eq(len(r.docs), 1, "%s: results in $TMPDIR" % desc)
    if r.docs:
        t.eq(region(main_thread(r.doc), "touch")["inclusive"]["page-faults"], 200,
             "%s: fallback results complete" % desc)


# A missing directory is made (test_reach.py); one under a regular file
# cannot be.
blocker = tempfile.NamedTemporaryFile(prefix="hpcshim-notadir-")
r = workload(*STEPS, env={"HPCSHIM_OUTPUT": os.path.join(blocker.name, "sub")})
check_fallback(r, "directory under a regular file", "Not a directory")
blocker.close()

if os.geteuid() == 0:
    why = unprivileged_skip()
    if why:
        t.skip("unwritable directories (as uid 65534)", why)
    else:
        locked = tempfile.mkdtemp(prefix="hpcshim-locked-")
        os.chmod(locked, 0o755)
        r = workload(*STEPS, env={"HPCSHIM_OUTPUT": locked}, user=(65534, 65534))
        check_fallback(r, "unwritable directory", "Permission denied")
        t.eq(os.listdir(locked), [], "unwritable directory: nothing left there")
        r = workload(*STEPS, env={"HPCSHIM_OUTPUT": os.path.join(locked, "new", "dir")},
                     user=(65534, 65534))
        check_fallback(r, "missing directory in an unwritable one", "Permission denied")
        t.eq(os.listdir(locked), [], "missing directory in an unwritable one: nothing made")
        shutil.rmtree(locked)

    full = tempfile.mkdtemp(prefix="hpcshim-full-")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", full]).returncode == 0:
        try:
            fd = os.open(os.path.join(full, "filler"), os.O_WRONLY | os.O_CREAT)
            try:
                while True:
                    os.write(fd, b"x" * 4096)
            except OSError:
                pass
            os.close(fd)
            r = workload(*STEPS, env={"HPCSHIM_OUTPUT": full})
            check_fallback(r, "full file system", "No space left on device")
            t.eq(sorted(os.listdir(full)), ["filler"], "full file system: no partial file left")
        finally:
            subprocess.run(["umount", full])
            os.rmdir(full)
    else:
        t.skip("full file system", "cannot mount a tmpfs here")
else:
    t.skip("unwritable and full directories", "needs root")

# File mode and no overwriting: three runs of the same program into one dir.
out = tempfile.mkdtemp(prefix="hpcshim-out-")
for _ in range(3):
    workload("touch", 1, outdir=out)
files = glob.glob(os.path.join(out, "hpcshim-*.json"))
t.eq(len(files), 3, "three processes, three files")
modes = {stat.S_IMODE(os.stat(f).st_mode) & 0o022 for f in files}
t.eq(modes, {0}, "result files are not group/world writable")
t.eq(glob.glob(os.path.join(out, ".*")), [], "no temporary files left behind")

# SIGKILL in the middle of a run: no file for it, earlier files intact.
# Without the periodic flush (test_kills.py has it): under load the run may
# pass its first flush before it has computed enough to be killed.
before = {f: open(f, "rb").read() for f in files}
env = dict(os.environ, LD_PRELOAD=LIB, HPCSHIM_OUTPUT=out, HPCSHIM_FLUSH="0")
p = subprocess.Popen([WORKLOAD, "busy", "5000"], env=env)
deadline = time.monotonic() + 30
while time.monotonic() < deadline:  # wait until it is busy computing
    with open("/proc/%d/stat" % p.pid) as f:
        if int(f.read().rsplit(")", 1)[1].split()[11]) > 10:  # utime ticks
            break
    time.sleep(0.01)
p.send_signal(signal.SIGKILL)
p.wait()
t.eq(p.returncode, -signal.SIGKILL, "SIGKILL: killed")
after = glob.glob(os.path.join(out, "hpcshim-*.json"))
t.eq(sorted(after), sorted(files), "SIGKILL: no file for the killed process")
t.ok(all(open(f, "rb").read() == before[f] for f in files), "SIGKILL: other results untouched")
t.eq(glob.glob(os.path.join(out, ".*")), [], "SIGKILL: no temporary file left")
shutil.rmtree(out)
t.done()
