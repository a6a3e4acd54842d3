// The benchmark's Go debuggee for Delve: same shape as roundtrip_target.py.
package main

import (
	"fmt"
	"os"
	"strconv"
)

func work(i, acc int) int {
	total := acc + i*i // BREAK
	return total
}

func main() {
	n := 1000
	if len(os.Args) > 1 {
		if v, err := strconv.Atoi(os.Args[1]); err == nil {
			n = v
		}
	}
	acc := 0
	for i := 0; i < n; i++ {
		acc = work(i, acc)
		acc = acc % 1000003
	}
	fmt.Println("done", acc)
}
