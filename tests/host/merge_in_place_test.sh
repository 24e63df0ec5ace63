#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmap3 merge --in-place, record --merge's merge (issue #40, 6): perf's
# file takes mmap3's build-ids where it is when no record moves (the same
# inode, every byte of its data section but the mappings' own), with the
# records a copy would have; otherwise a merged file replaces it.  A
# failure on the way (here the table's write past a file size limit)
# leaves a file perf reads, each mapping perf's or mmap3's.  Judged by
# every perf of tap_perfs.  Prints TAP.
#
#   tests/host/merge_in_place_test.sh MMAP3
set -u

mmap3=$1
craft=$(cd "$(dirname "$0")" && pwd)/craft.py
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1
for f in inplace-perf inplace-side inplace-side-more; do
	python3 "$craft" $f $f.data
done
ino() { stat -c %i "$1"; }
# shown FILE: what $perf shows of its mappings and samples.
shown() { $perf script -i "$1" --show-mmap-events -F pid,time,ip,event 2>/dev/null; }

cp inplace-perf.data copy.data
"$mmap3" merge inplace-perf.data inplace-side.data -o copied.data 2>err
cp inplace-perf.data perf.data
before=$(ino perf.data)
"$mmap3" merge --in-place perf.data inplace-side.data 2>err
rc=$?
sed 's/^/# /' err
check "merge --in-place with nothing to add: status 0 (got $rc)" test $rc -eq 0
check "... the same file, rewritten where it is (inode $before)" test "$(ino perf.data)" = "$before"
check "... its data section unchanged but the two mappings' fixed parts" \
	python3 - inplace-perf.data perf.data <<'PY'
import struct, sys
a, b = (open(p, 'rb').read() for p in sys.argv[1:])
off, size = struct.unpack_from('<QQ', a, 40)
diff = [i for i in range(off, off + size) if a[i] != b[i]]
# Each MMAP2 record's misc (2 bytes) and device/inode..flags (32 bytes) only.
sys.exit(0 if diff and len(diff) <= 2 * 34 else 1)
PY
for perf in $(tap_perfs); do
	by=$(tap_perf_label $perf)
	shown perf.data >in-place.txt
	shown copied.data >copied.txt
	check "... $by reads it: the records a copy has" sh -c "test -s in-place.txt && diff in-place.txt copied.txt"
	check "... both mappings with mmap3's build-id ($by)" \
		sh -c "grep -q 'a0a1a2a3' in-place.txt && grep -q 'b0b1b2b3' in-place.txt"
	$perf buildid-list -i perf.data >ids.txt 2>/dev/null
	check "... perf's own table entry kept, mmap3's added ($by: $(wc -l <ids.txt) entries)" \
		sh -c "grep -q '^c0c1c2c3.* /usr/bin/app' ids.txt && grep -q '/usr/lib/perf39.so' ids.txt &&
		       grep -q '^a0a1a2a3.*libreload.so' ids.txt && grep -q '^b0b1b2b3.*libstart.so' ids.txt"
	check "... not the files of processes perf did not record" \
		sh -c "! grep -q '/usr/lib/other' ids.txt"
done

# Something to add: a merged file replaces it.
cp inplace-perf.data perf.data
before=$(ino perf.data)
"$mmap3" merge --in-place perf.data inplace-side-more.data 2>err
rc=$?
sed 's/^/# /' err
check "merge --in-place with a mapping to add: status 0 (got $rc), 1 record added" \
	sh -c "test $rc -eq 0 && grep -q ', 1 records added' err"
check "... perf.data replaced by the merged file" test "$(ino perf.data)" != "$before"
check "... not kept as .old" test ! -e perf.data.old
for perf in $(tap_perfs); do
	check "... the added mapping in it ($(tap_perf_label $perf))" \
		sh -c "$perf script -i perf.data --show-mmap-events 2>/dev/null | grep -q libmore.so"
done

# The table's write fails (past RLIMIT_FSIZE): status 1, the file whole.
cp inplace-perf.data perf.data
size=$(stat -c %s perf.data)
(
	trap '' XFSZ
	ulimit -f $(((size + 1023) / 1024))
	"$mmap3" merge --in-place perf.data inplace-side.data 2>err
)
rc=$?
sed 's/^/# /' err
check "the build-id table cannot be written: status 1 (got $rc), said" \
	sh -c "test $rc -eq 1 && grep -q 'cannot write its build-id table' err"
for perf in $(tap_perfs); do
	by=$(tap_perf_label $perf)
	check "... $by still reads the file, every sample there" \
		sh -c "test \$($perf script -i perf.data -F ip 2>/dev/null | wc -l) -eq 3"
	check "... its table the old one ($by)" \
		sh -c "test \$($perf buildid-list -i perf.data 2>/dev/null | wc -l) -eq 41"
done

# What it refuses as merge does.
"$mmap3" merge --in-place perf.data inplace-side.data -o x.data 2>err
check "--in-place and -o: a usage error, said" sh -c "test $? -eq 2 && grep -q 'give one' err"
"$mmap3" merge perf.data inplace-side.data 2>err
check "no -o and no --in-place: a usage error naming both" \
	sh -c "test $? -eq 2 && grep -q 'give -o OUT, or --in-place' err"

tap_done
