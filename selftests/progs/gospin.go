// SPDX-License-Identifier: GPL-2.0
//
// A Go program for the tests of build-ids derived from Go's own
// (docs/identity.md): the Makefile builds it twice, as gospin_v1 and
// gospin_v2, each with its own spinning function, by Go's linker with
// default flags (static; before Go 1.24, no GNU build-id).
//
//	gospin_vN MS	spin for MS milliseconds
package main

import (
	"os"
	"strconv"
	"time"
)

var sink uint64

//go:noinline
func spinGoVersionN(until time.Time) {
	for time.Now().Before(until) {
		for i := 0; i < 100000; i++ {
			sink += uint64(i) * 2654435761
		}
	}
}

func main() {
	ms := 0
	if len(os.Args) > 1 {
		ms, _ = strconv.Atoi(os.Args[1])
	}
	spinGoVersionN(time.Now().Add(time.Duration(ms) * time.Millisecond))
}
