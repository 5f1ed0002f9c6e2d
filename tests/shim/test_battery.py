"""Real programs never notice the shim: the same stdout and exit status with
and without LD_PRELOAD=libhpcshim.so (which every child inherits): shell
pipelines and subshells, coreutils, gzip, tar, python3 with
multiprocessing, make -j4 driving gcc, a program that closes every
descriptor, one living on SIGALRM/setitimer."""
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: hpctest
from hpctest import Tap, run, WORKLOAD

t = Tap()
work = tempfile.mkdtemp(prefix="hpcshim-battery-")
out = os.path.join(work, "results")
os.mkdir(out)

with open(os.path.join(work, "lines.txt"), "w") as f:
    for i in range(20000):
        f.write("%d line %d\n" % ((i * 7919) % 10007, i))
with open(os.path.join(work, "hello.c"), "w") as f:
    f.write('#include <stdio.h>\nint main(void){puts("hello from gcc");return 3;}\n')
with open(os.path.join(work, "Makefile"), "w") as f:
    f.write("all: " + " ".join("o%d.o" % i for i in range(8)) + "\n\t@echo linked\n"
            "o%.o:\n\t@printf 'int f$*(void){return $*;}\\n' > o$*.c && "
            "gcc -c o$*.c -o $@ && echo built $@ >/dev/null\n"
            "clean:\n\t@rm -f *.o o*.c\n")
with open(os.path.join(work, "mp.py"), "w") as f:
    f.write("import multiprocessing as mp\n"
            "def sq(x):\n    return x * x\n"
            "if __name__ == '__main__':\n"
            "    with mp.Pool(4) as p:\n        print(sum(p.map(sq, range(1000))))\n"
            "    import subprocess, sys\n"
            "    print(subprocess.run([sys.executable, '-c', 'print(42)'], capture_output=True, text=True).stdout.strip())\n")
with open(os.path.join(work, "alarm.py"), "w") as f:
    f.write("import signal, time\nn = 0\n"
            "def h(s, fr):\n    global n\n    n += 1\n"
            "signal.signal(signal.SIGALRM, h)\n"
            "signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)\n"
            "while n < 50:\n    signal.pause()\n"
            "signal.setitimer(signal.ITIMER_REAL, 0)\nprint('alarms', n)\n")

py = shutil.which("python3")
cases = [
    ("bash pipeline", "sort -n lines.txt | uniq -c | sort -rn | head -5 | wc -l; (cd / && pwd); echo $((6*7))"),
    ("subshells and exit codes", "( exit 3 ); echo $?; false || echo alt; bash -c 'exit 5'; echo $?"),
    ("gzip round trip", "gzip -c lines.txt > l.gz && gunzip -c l.gz | md5sum && md5sum < lines.txt"),
    ("tar round trip", "tar cf a.tar lines.txt hello.c && mkdir -p x && tar xf a.tar -C x && cmp x/lines.txt lines.txt && echo same"),
    ("gcc compile and run", "gcc hello.c -o hello && ./hello; echo status $?"),
    ("make -j4", "make -s clean && make -s -j4 && ls *.o | wc -l"),
    ("python3 multiprocessing", "%s mp.py" % py),
    ("SIGALRM / setitimer", "%s alarm.py" % py),
    ("closes every descriptor", "%s closeall" % WORKLOAD),
    ("exit status 42 through a pipe", "bash -c 'echo x | (read a; exit 42)'"),
]
for desc, cmd in cases:
    bare = run(["bash", "-c", "cd %s && %s" % (work, cmd)], preload=False, outdir=out)
    shim = run(["bash", "-c", "cd %s && %s" % (work, cmd)], outdir=out)
    t.eq((shim.rc, shim.out), (bare.rc, bare.out), "%s: stdout and status identical" % desc)
    t.eq(shim.shim_lines(), [], "%s: no hpcshim lines" % desc)
    n = len([f for f in os.listdir(out) if f.endswith(".json")])
    t.ok(n > 0, "%s: results written (%d files so far)" % (desc, n))
shutil.rmtree(work, ignore_errors=True)
t.done()
