#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A Go program without a GNU build-id (Go's linker before 1.24, default
# flags: Debian's golang-go) gets the id derived from its Go build id,
# and mmap3 record --capture stores a copy perf accepts for it (issue
# #43): the copy's own .note.gnu.build-id holds the derived id, every
# byte of the program as it was but the ELF header's section table
# fields, and each perf of tap_perfs reads that id from it.  With the
# stand-in device (mmap3-fake).  Prints TAP.
#
#   tests/host/capture_derived_test.sh MMAP3-FAKE
set -u

fake=$1
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1
top=$(cd "$(dirname "$0")/../.." && pwd)

if ! command -v go >/dev/null; then
	tap_skip "no Go toolchain (tests/setup installs golang-go)"
	tap_done
	exit
fi
mkdir -p src
sed 's/spinGoVersionN/spinGoVersion1/' "$top/selftests/progs/gospin.go" >src/main.go
printf 'module gospin\n\ngo 1.19\n' >src/go.mod
(cd src && CGO_ENABLED=0 GOPROXY=off GOTOOLCHAIN=local GOFLAGS= go build -o ../gospin .)
check "a Go program built by Go's linker, default flags" test -x gospin

# The oracle, apart from lib/: Go's -B gobuildid derivation in Python.
read -r gnu want < <(python3 - gospin <<'PY'
import hashlib, re, struct, sys
d = open(sys.argv[1], 'rb').read()
shoff, = struct.unpack_from('<Q', d, 0x28)
shentsize, shnum = struct.unpack_from('<HH', d, 0x3a)
notes = {}
for i in range(shnum):
    _, typ, _, _, off, size = struct.unpack_from('<IIQQQQ', d, shoff + i * shentsize)
    o = off
    while typ == 7 and o + 12 <= off + size:
        nsz, dsz, t = struct.unpack_from('<III', d, o)
        do = o + 12 + ((nsz + 3) & ~3)
        notes[(d[o + 12:o + 12 + nsz], t)] = d[do:do + dsz]
        o = do + ((dsz + 3) & ~3)
go = notes[(b'Go\0\0', 4)]
p = go.split(b'/')
if len(p) == 4 and all(re.fullmatch(rb'[A-Za-z0-9_-]{20}', x) for x in p):
    go = b'/'.join(p[:3] + [p[0]])
print('gnu' if (b'GNU\0', 3) in notes else 'none',
      bytes(b ^ 0xff for b in hashlib.sha256(go).digest()[:20]).hex())
PY
)
check "it has no GNU build-id ($gnu), only Go's" test "$gnu" = none
link=DIR/.build-id/${want:0:2}/${want:2}

printf '%s\0%s\0' "$tmp/gospin" /usr/bin/gospin >pairs
MMAP3_FAKE=files=$tmp/pairs "$fake" record -o side.data --capture DIR -- true 2>err
check "record --capture exits 0" test $? -eq 0
sed 's/^/# /' err
check "the copy is stored under the derived id $want" test -f "$link/elf"
check "its own GNU note holds that id" \
	sh -c "readelf -n '$link/elf' | grep -q 'Build ID: $want'"
check "every byte of the program kept, but the ELF header's section table fields" \
	"$top/tests/lib/elf_same_but_sections.py" gospin "$link/elf"
cp "$link/elf" copy && chmod +x copy
check "it still runs" ./copy 0
"$fake" dump side.data >dump.txt 2>&1
check "dump says the mapping's id is derived from Go's" grep -q "kind=go" dump.txt
for perf in $(tap_perfs); do
	by=$(tap_perf_label "$perf")
	check "perf buildid-list reads the derived id from the copy ($by)" \
		sh -c "$perf buildid-list -i '$link/elf' 2>/dev/null | grep -qx '$want'"
	check "perf buildid-list lists it for the side file's mapping ($by)" \
		sh -c "$perf buildid-list -i side.data 2>/dev/null | grep -q '^$want /usr/bin/gospin\$'"
done

# A tool that does not capture asks for no derived id: nothing changes.
MMAP3_FAKE=files=$tmp/pairs "$fake" record -o plain.data -- true 2>/dev/null
"$fake" dump plain.data >plain.txt 2>&1
check "without --capture: no derived id (status no_note)" grep -q "status=no_note" plain.txt
tap_done
