// gostatic.go - a Go program without cgo (tests/command/test_reach.py).  Built with
// CGO_ENABLED=0 it is a static executable (no PT_INTERP): no dynamic loader
// runs, so LD_PRELOAD never brings the shim in, and its system calls are
// raw.  hpcshim run says so and runs it unchanged.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Println("go static", len(os.Args)-1, "args")
	fmt.Fprintln(os.Stderr, "its own stderr line")
	os.Exit(3)
}
