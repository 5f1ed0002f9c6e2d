// cgo.go - a Go program built with cgo (tests/programs/test_programs.py): calls a C
// function from several goroutines and prints the total.  Built with cgo,
// it loads the shim, and the Go runtime ends the process with a raw
// exit_group system call rather than through libc's exit.
package main

/*
static long series(long k, long n)
{
	long s = 0;
	for (long j = 0; j < n; j++)
		s += (j * (k + 1)) % 7;
	return s;
}
*/
import "C"

import (
	"fmt"
	"sync"
)

func main() {
	const n = 4
	sums := make([]int64, n)
	var wg sync.WaitGroup
	for k := 0; k < n; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			sums[k] = int64(C.series(C.long(k), 60000000))
		}(k)
	}
	wg.Wait()
	var total int64
	for _, s := range sums {
		total += s
	}
	fmt.Printf("goroutines %d total %d\n", n, total)
}
