#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A capture directory is a store Debian's debuginfod serves as it is
# (issue #44, 1 and 4): debuginfod -F DIR indexes it with no other step,
# and debuginfod-find fetches /buildid/ID/executable byte for byte as
# mmap3 stored it: a C program's exact bytes under its GNU build-id, a Go
# program's (no GNU build-id) copy under its derived id, which the copy's
# own note carries.  Captures made with the stand-in device (mmap3-fake);
# debuginfod on a loopback port of its own.  Prints TAP.
#
#   tests/host/capture_debuginfod_test.sh MMAP3-FAKE
set -u

fake=$1
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/debuginfod.sh"
tap_tmpdir || exit 1
top=$(cd "$(dirname "$0")/../.." && pwd)

if ! command -v debuginfod >/dev/null || ! command -v go >/dev/null; then
	tap_skip "no debuginfod or Go toolchain (tests/setup installs debuginfod and golang-go)"
	tap_done
	exit
fi
printf 'int main(void) { return 0; }\n' >c.c
cc -o cprog c.c
mkdir -p src
sed 's/spinGoVersionN/spinGoVersion1/' "$top/selftests/progs/gospin.go" >src/main.go
printf 'module gospin\n\ngo 1.19\n' >src/go.mod
(cd src && CGO_ENABLED=0 GOPROXY=off GOTOOLCHAIN=local GOFLAGS= go build -o ../goprog .)

printf '%s\0%s\0%s\0%s\0' "$tmp/cprog" /usr/bin/cprog "$tmp/goprog" /usr/bin/goprog >pairs
MMAP3_FAKE=files=$tmp/pairs "$fake" record -o side.data --capture DIR -- true 2>err
check "record --capture of a C and a Go program exits 0" test $? -eq 0
cid=$("$fake" dump side.data | sed -n 's/^  \([0-9a-f]*\) \/usr\/bin\/cprog$/\1/p')
gid=$("$fake" dump side.data | sed -n 's/^  \([0-9a-f]*\) \/usr\/bin\/goprog$/\1/p')
check "both have ids in the side file ($cid, $gid)" test -n "$cid" -a -n "$gid"

# A port of our own, on loopback only as far as clients go.
debuginfod_start "$tmp/DIR"
trap debuginfod_stop EXIT
export DEBUGINFOD_URLS=$debuginfod_url
cpath=$(debuginfod_fetch "$cid")
check "debuginfod serves the C program under its GNU build-id" test -n "$cpath"
check "... the bytes that were mapped" cmp "$tmp/cprog" "$cpath"
gpath=$(debuginfod_fetch "$gid")
check "debuginfod serves the Go program under its derived id" test -n "$gpath"
check "... the copy mmap3 stored, with the id in its own note" \
	cmp "DIR/.build-id/${gid:0:2}/${gid:2}/elf" "$gpath"
check "... the Go program's own bytes, but the ELF header's section table fields" \
	"$top/tests/lib/elf_same_but_sections.py" goprog "$gpath"
debuginfod_stop
trap - EXIT
tap_done
