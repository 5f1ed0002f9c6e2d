// goflush.go - a Go program built with cgo (tests/command/test_reach.py).  It loads
// the shim, but the Go runtime ends the process with a raw exit_group: no
// atexit handler or destructor runs, so its file is the periodic flush's
// (HPCSHIM_FLUSH).  It computes in C until that flush has published a
// file in HPCSHIM_OUTPUT, then returns from main; "quick" returns at once.
package main

/*
static long work(long n)
{
	long s = 0;
	for (long j = 0; j < n; j++)
		s += (j * 3) % 7;
	return s;
}
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "quick" {
		fmt.Println("quick", C.work(1000) > 0)
		return
	}
	dir := os.Getenv("HPCSHIM_OUTPUT")
	// A guard, not a wait: a shim that never flushes fails the test.
	deadline := time.Now().Add(120 * time.Second)
	var s C.long
	for {
		s += C.work(1000000)
		if m, _ := filepath.Glob(filepath.Join(dir, "hpcshim-*.json")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			fmt.Println("no flushed file after 120 s")
			os.Exit(1)
		}
	}
	fmt.Println("flushed", s > 0)
}
