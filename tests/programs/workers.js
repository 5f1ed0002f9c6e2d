// workers.js - node with 2 worker_threads (tests/programs/test_programs.py).  Each
// worker sums a known series and posts it, with its tid (/proc/thread-self),
// to the main thread, which prints the total.  argv[2], when given,
// receives the main thread's tid and the workers' (one per line).
'use strict';
const { Worker, isMainThread, parentPort, workerData } = require('worker_threads');
const fs = require('fs');
const path = require('path');

function tid() {
  return path.basename(fs.readlinkSync('/proc/thread-self'));
}

if (isMainThread) {
  const n = 2;
  let done = 0, total = 0;
  const tids = [tid()];
  for (let k = 0; k < n; k++) {
    const w = new Worker(__filename, { workerData: k });
    w.on('message', (m) => {
      total += m.sum;
      tids.push(m.tid);
      if (++done === n) {
        console.log('workers ' + n + ' total ' + total);
        if (process.argv[2])
          fs.writeFileSync(process.argv[2], tids.join('\n') + '\n');
      }
    });
  }
} else {
  let s = 0;
  for (let j = 0; j < 5e6; j++)
    s += (j * (workerData + 1)) % 7;
  parentPort.postMessage({ sum: s, tid: tid() });
}
