"""numpy_matmul.py - a matrix product on OpenBLAS threads (run by
tests/programs/test_programs.py with /usr/bin/python3 and OPENBLAS_NUM_THREADS=2).
Small integers: the product is exact whatever the threads' split.
argv[1], when given, receives the tids of every task of the process after
the product (one per line)."""
import os
import sys

import numpy as np

n = 400
a = (np.arange(n * n, dtype=np.float64) % 7 - 2).reshape(n, n)
b = (np.arange(n * n, dtype=np.float64) % 5 - 1).reshape(n, n)
c = np.zeros((n, n))
for _ in range(4):
    c += a @ b
w = (np.arange(n * n) % 3 + 1).reshape(n, n)
print("n %d checksum %d" % (n, int((c * w).sum())))
if len(sys.argv) > 1:
    with open(sys.argv[1], "w") as f:
        for tid in sorted(os.listdir("/proc/self/task")):
            f.write(tid + "\n")
