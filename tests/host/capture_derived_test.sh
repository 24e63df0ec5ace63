#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A Go program without a GNU build-id (Go's linker before 1.24, default
# flags: Debian's golang-go) gets the id derived from its Go build id, a
# C program linked --build-id=none one of its bytes,
# and mmap3 record --capture stores a copy perf accepts for it (issue
# #43): the copy's own .note.gnu.build-id holds the derived id, every
# byte of the program as it was but the ELF header's section table
# fields, and each perf of tap_perfs reads that id from it.  With the
# stand-in device (mmap3-fake).  And mmap3 buildid --no-module gives the
# same ids, read by lib/ with no module.  Prints TAP.
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

# A C program linked with --build-id=none: an id of its bytes, the
# oracle Python's hashlib over the tag, the size and the bytes.
printf 'int main(void) { return 7; }\n' >nb.c
cc -o nobid nb.c -Wl,--build-id=none
cwant=$(python3 -c '
import hashlib, sys
d = open(sys.argv[1], "rb").read()
print(hashlib.sha256(b"mmap3 content identity 1\0" + len(d).to_bytes(8, "little") + d).hexdigest()[:40])
' nobid)
printf '%s\0%s\0' "$tmp/nobid" /usr/bin/nobid >cpairs
MMAP3_FAKE=files=$tmp/cpairs "$fake" record -o cside.data --capture CDIR -- true 2>cerr
clink=CDIR/.build-id/${cwant:0:2}/${cwant:2}
check "a program without any note: its copy stored under the id of its bytes $cwant" \
	test -f "$clink/elf"
check "... its own GNU note holds that id" \
	sh -c "readelf -n '$clink/elf' | grep -q 'Build ID: $cwant'"
check "... every byte of the program kept, but the ELF header's section table fields" \
	"$top/tests/lib/elf_same_but_sections.py" nobid "$clink/elf"
"$fake" dump cside.data >cdump.txt 2>&1
check "dump says the mapping's id is derived from its contents" grep -q "kind=content" cdump.txt
for perf in $(tap_perfs); do
	check "perf buildid-list reads the content id from the copy ($(tap_perf_label "$perf"))" \
		sh -c "$perf buildid-list -i '$clink/elf' 2>/dev/null | grep -qx '$cwant'"
done

# mmap3 buildid --no-module: the same ids, read here by lib/, no module.
check "buildid --no-module: the Go program's derived id and its kind" \
	sh -c "'$fake' buildid --no-module gospin | grep -qx '$want gospin (derived from its Go build id)'"
check "buildid --no-module: the program without a note, the id of its bytes" \
	sh -c "'$fake' buildid --no-module nobid | grep -qx '$cwant nobid (derived from its contents)'"
cc -o withid nb.c -Wl,--build-id=sha1
gid=$(readelf -n withid | sed -n 's/.*Build ID: //p')
check "buildid --no-module: a GNU build-id as readelf shows it ($gid)" \
	sh -c "'$fake' buildid --no-module withid | grep -qx '$gid withid'"
check "buildid --no-module --json: the kind" \
	sh -c "'$fake' buildid --no-module --json gospin | grep -q '\"kind\": \"go\"'"
"$fake" buildid --no-module nb.c >out 2>err
rc=$?
check "buildid --no-module of a file that is no ELF file: status 1 (got $rc), the reason" \
	sh -c "test $rc -eq 1 && grep -qx 'mmap3: nb.c: no build-id: not an ELF file' err && ! test -s out"

# A tool that does not capture asks for no derived id: nothing changes.
MMAP3_FAKE=files=$tmp/pairs "$fake" record -o plain.data -- true 2>/dev/null
"$fake" dump plain.data >plain.txt 2>&1
check "without --capture: no derived id (status no_note)" grep -q "status=no_note" plain.txt
tap_done
