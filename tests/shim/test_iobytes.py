"""The bytes of the io wrap set's vector, copy and socket calls under
hpcshim run --profile (data/wrap/io.sig, preload/wrap/bytes.c): preadv,
pwritev, preadv2, pwritev2, sendfile, copy_file_range (files), send/recv,
sendto/recvfrom, sendmsg/recvmsg (a socketpair), each REPEAT times with a
byte count of its own and once failing.  A call's bytes are its return
value when above 0: the wrap entry's bytes are exactly what the calls
returned, a failed call (-1) adds none, and a copy counts its bytes once."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hpctest import BUILD, Tap, run  # noqa: E402

HPCSHIM = os.path.join(BUILD, "hpcshim")
PROG = os.path.join(BUILD, "tests", "shim", "iobytes")
REPEAT = 3
# bytes per call, as tests/shim/iobytes.c's size[] (a receive its send's)
SIZE = {"preadv": 1000, "pwritev": 1001, "preadv2": 1002, "pwritev2": 1003, "sendfile": 1004,
        "copy_file_range": 1005, "send": 1006, "recv": 1006, "sendto": 1008, "recvfrom": 1008,
        "sendmsg": 1010, "recvmsg": 1010}
t = Tap()
tmp = tempfile.mkdtemp(prefix="hpcshim-iobytes-")
os.chmod(tmp, 0o777)
r = run([HPCSHIM, "run", "--profile", "-q", "--", PROG, tmp, str(REPEAT)], preload=False)
t.eq(r.rc, 0, "iobytes under hpcshim run --profile: every call moved what it asked " + r.err.strip())
said = dict((l.split()[0], int(l.split()[1])) for l in r.out.splitlines() if len(l.split()) == 2)
want = {k: REPEAT * v for k, v in SIZE.items()}
t.eq(said, want, "the program's own sums of the calls' return values")
d = r.docs[0] if len(r.docs) == 1 else {}
wrap = {w["name"]: w for w in d.get("wrap", [])}
got = {k: wrap.get(k, {}).get("bytes") for k in SIZE}
t.eq(got, want, "the profile's bytes per function: exactly the calls' return values "
     "(%d calls each, the failing one adding none)" % REPEAT)
t.ok(all(wrap.get(k, {}).get("status") == "wrapped" and wrap[k].get("set") == "io" for k in SIZE),
     "each one wrapped by the io set", {k: wrap.get(k, {}).get("status") for k in SIZE})
calls = {k: sum(g["calls"] for g in d.get("regions", []) if g["name"] == k) for k in SIZE}
t.eq(calls, {k: REPEAT + 1 for k in SIZE}, "each a region of its calls, the failing one too")
# the profile view: I/O functions (kind io) with those bytes
out = os.path.join(tmp, "result.json")
with open(out, "w") as f:
    json.dump(d, f)
p = subprocess.run([HPCSHIM, "report", "--view", "profile", "--format", "json", out],
                   capture_output=True, encoding="utf-8")
io = ({f["function"]: f for f in json.loads(p.stdout)["profile"]["io"]}
      if p.returncode == 0 else {})
t.eq({k: (io[k]["kind"], io[k]["bytes"]["sum"]) if k in io and io[k]["bytes"] else None
      for k in SIZE}, {k: ("io", v) for k, v in want.items()},
     "report --view profile: each an I/O function with its bytes")
shutil.rmtree(tmp, ignore_errors=True)
t.done()
