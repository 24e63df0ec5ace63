#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# merge reads its input twice: pass 1 checks every record, pass 2 reads
# perf's mappings again to rewrite them and copies the rest as it is.
# Whoever owns the input may write to it in between (merge runs as root
# on others' files): mmap3-race (the tool with tests/host/race_hook.c)
# writes to it as merge creates its output, between the passes.  A
# mapping read again whose header or fields changed (a size that would
# make a negative copy, or copy stack bytes into the output; a name
# without its NUL), and any other change to either input (a sample's
# bytes, with the mtime set back too), must give status 1, one line
# naming the file, the offset and what was expected, and no output: never
# a sanitizer report (the binary is built with ASan and UBSan).  Writes
# through a shared mapping, which move no time, included.  Prints TAP.
#
#   tests/host/merge_race_test.sh MMAP3-RACE
set -u

race=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
tap_tmpdir || exit 1

"$here/craft.py" reload-side side.data
# perf's view with a kernel map (which pass 2 reads again to cut a
# module's length) first; its user mappings are rewritten.
python3 - "$here" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import craft
r = [craft.kmmap(craft.ST, 0xffffffff81000000, 0x1000000, '[kernel.kallsyms]_text', 0),
     craft.comm(craft.ST, 100, 'app', 900),
     craft.mmap2(craft.ST, 100, 0x7f0000000000, 0x1000, 0, craft.LIB, 1000)]
r += [craft.sample(100, 0x7f0000000100, 1100 + i) for i in range(3)]
open('perf.orig', 'wb').write(craft.file_mode([craft.attr(sample_type=craft.ST)], r,
                                               craft.host_features()))
PY
# Offsets of the records, from the file's own layout.
"$race" dump perf.orig >dump.txt
kmap=$(awk '/ MMAP  / { print $1; exit }' dump.txt)
umap=$(awk '/ MMAP2 / { print $1; exit }' dump.txt)
sample=$(awk '/ SAMPLE / { print $1; exit }' dump.txt)
check "the input has a kernel map ($kmap), a user mapping ($umap) and a sample ($sample)" \
	test -n "$kmap" -a -n "$umap" -a -n "$sample"

cp perf.orig perf.data
"$race" merge perf.data side.data -o out.data >/dev/null 2>err
check "unchanged inputs merge: status 0" sh -c "test $? -eq 0 && test -s out.data"
rm -f out.data

# refused NAME PATTERN FILE OFFSET HEX [KEEP-MTIME]: the bytes HEX written at
# OFFSET in FILE between the passes; status 1, one line matching
# PATTERN (and race_hook's), no output.
refused()
{
	local name=$1 pattern=$2 file=$3 off=$4 hex=$5 keep=${6:-} rc
	cp perf.orig perf.data
	"$here/craft.py" reload-side side.data
	# Times move by the jiffy: the write must come a tick after these.
	sleep 0.05
	MMAP3_RACE=$file:$off:$hex MMAP3_RACE_KEEP_MTIME=$keep \
		"$race" merge perf.data side.data -o out.data >/dev/null 2>err
	rc=$?
	check "$name: status 1 (got $rc)" test $rc -eq 1
	check "$name: one line: $(grep -v '^race_hook:' err | head -c 250)" \
		sh -c "grep -q '^race_hook: wrote' err && test \$(grep -vc '^race_hook:' err) -eq 1 &&
		       grep -v '^race_hook:' err | grep -qE -- '$pattern'"
	check "$name: no output" test ! -e out.data
}

le16() { printf '%02x%02x' $(($1 & 255)) $(($1 >> 8)); }

refused "a mapping's size cut to 8 (a negative copy)" \
	"^mmap3: perf.data: offset $umap: a record of type MMAP2 \\(10\\), misc 0x[0-9a-f]+ and 8 bytes, where the first pass read type MMAP2 \\(10\\), misc 0x[0-9a-f]+ and [0-9]+ bytes: expected the file unchanged" \
	perf.data $((umap + 6)) "$(le16 8)"
refused "a mapping's size grown to 65528 (stack bytes into the output)" \
	"^mmap3: perf.data: offset $umap: a record of type MMAP2 \\(10\\), .* and 65528 bytes, where the first pass read .*: expected the file unchanged" \
	perf.data $((umap + 6)) "$(le16 65528)"
refused "a kernel map's size grown to 65528" \
	"^mmap3: perf.data: offset $kmap: a record of type MMAP \\(1\\), .* and 65528 bytes, where the first pass read .*: expected the file unchanged" \
	perf.data $((kmap + 6)) "$(le16 65528)"
refused "a mapping's type changed" \
	"^mmap3: perf.data: offset $umap: a record of type COMM \\(3\\), .*: expected the file unchanged" \
	perf.data $umap "03000000"
refused "a mapping's name without its NUL" \
	"^mmap3: perf.data: offset $((umap + 72)): the name in the MMAP2 \\(10\\) record: expected a NUL" \
	perf.data $((umap + 72)) "$(printf '41%.0s' $(seq 32))"
# A sample's run of records: read again, summed, and compared.
refused "a sample's bytes (copied as they are)" \
	"^mmap3: perf.data: offset [0-9]+: the [0-9]+ bytes of records there are not those the first pass read: expected the file unchanged" \
	perf.data $((sample + 8)) "4141414141414141"
refused "a sample's bytes, the mtime set back" \
	"^mmap3: perf.data: offset [0-9]+: the [0-9]+ bytes of records there are not those the first pass read: expected the file unchanged" \
	perf.data $((sample + 8)) "4141414141414141" 1
# Through a shared mapping dirtied before merge opened the file, no time
# moves: only what pass 2 reads tells.
MMAP3_RACE_SHARED=1 refused "a sample's bytes, through a shared mapping (no time moves)" \
	"^mmap3: perf.data: offset [0-9]+: the [0-9]+ bytes of records there are not those the first pass read: expected the file unchanged" \
	perf.data $((sample + 8)) "4141414141414141"
MMAP3_RACE_SHARED=1 refused "a mapping's size, through a shared mapping" \
	"^mmap3: perf.data: offset $umap: a record of type MMAP2 \\(10\\), .* and 8 bytes, where the first pass read .*: expected the file unchanged" \
	perf.data $((umap + 6)) "$(le16 8)"
size=$(stat -c %s perf.orig)
refused "bytes appended to the input" \
	"^mmap3: perf.data: offset $size: the file is now $((size + 8)) bytes, $size when it was opened: expected it unchanged" \
	perf.data "$size" "0000000000000000"
refused "the side file written to" \
	"^mmap3: side.data: offset 0: the file was written to .*: expected it unchanged while it is read" \
	side.data 300 "41"

tap_done
