#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmap3 merge on the host: a perf.data from the host's perf record and a
# side file from side_write, judged by the host's perf (and sid's perf 7.x:
# every perf of tap_perfs); bad inputs.
# Prints TAP.  Skips the perf record parts where perf cannot record here.
#
#   tests/host/merge_test.sh SIDE_WRITE MMAP3
set -u

side_write=$1
mmap3=$2
. "$(dirname "$0")/../lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! perf record -q -e cpu-clock -o "$tmp/perf.data" -- sleep 0.05 >/dev/null 2>&1; then
	tap_skip "perf record does not work on this machine"
	tap_done
	exit
fi
# The side file's times within perf's (merge refuses files that do not
# overlap), and its made-up processes added (--all-processes): perf did
# not record them.
first=$("$mmap3" dump --json "$tmp/perf.data" | python3 -c '
import json, sys
print(min(int(r["time"]) for r in json.load(sys.stdin)["records"] if int(r.get("time", 0))))')
"$side_write" "$tmp/side.data" "$first" >/dev/null
cp "$tmp/perf.data" "$tmp/perf.orig"
cp "$tmp/side.data" "$tmp/side.orig"

"$mmap3" merge --all-processes "$tmp/perf.data" "$tmp/side.data" -o "$tmp/merged.data" 2>"$tmp/merge.log"
check "merge exits 0" test $? -eq 0
check "the inputs are unchanged" sh -c "cmp $tmp/perf.data $tmp/perf.orig && cmp $tmp/side.data $tmp/side.orig"
# Judged by each perf (tap_perfs).
for perf in $(tap_perfs); do
	by=$(tap_perf_label $perf)
	check "$by runs" $perf --version
	$perf script -i "$tmp/merged.data" --show-mmap-events >"$tmp/script" 2>/dev/null
	check "$by script reads the merged file" test -s "$tmp/script"
	check "it has mmap3's mapping with its build-id ($by)" \
		grep -q 'PERF_RECORD_MMAP2 100/100: .*<101112131415161718191a1b1c1d1e1f20212223>.*/usr/bin/prog' "$tmp/script"
	check "it has the module mmap3 saw ($by)" grep -q 'x \[testmod\]' "$tmp/script"
	check "the kernel keeps perf's map only: a second would restart perf's kernel maps ($by)" \
		sh -c "$perf script -i $tmp/perf.data --show-mmap-events 2>/dev/null | grep -c 'kernel.kallsyms\]_text' >$tmp/a;
		       grep -c 'kernel.kallsyms\]_text' $tmp/script >$tmp/b; cmp $tmp/a $tmp/b"
	check "it still has perf's own samples ($by)" \
		sh -c "$perf script -i $tmp/perf.data | wc -l > $tmp/a; $perf script -i $tmp/merged.data | wc -l > $tmp/b; cmp $tmp/a $tmp/b"
	$perf buildid-list -i "$tmp/merged.data" >"$tmp/ids" 2>/dev/null
	check "$by buildid-list has mmap3's module" grep -q '^b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3 \[testmod\]$' "$tmp/ids"
	check "$by report reads the merged file" sh -c "$perf report -i $tmp/merged.data --stdio >/dev/null 2>&1"
done

# Merging again gives the same file: nothing depends on time or order of runs.
"$mmap3" merge --all-processes "$tmp/perf.data" "$tmp/side.data" -o "$tmp/merged2.data" 2>/dev/null
check "merge is deterministic" cmp "$tmp/merged.data" "$tmp/merged2.data"

# Onto another file system (where /tmp is not tmpfs) copy_file_range
# refuses, and merge copies the records itself: the same file.
if shm=$(mktemp -d /dev/shm/mmap3-merge.XXXXXX 2>/dev/null); then
	"$mmap3" merge --all-processes "$tmp/perf.data" "$tmp/side.data" -o "$shm/merged.data" 2>/dev/null
	check "merge onto another file system writes the same file" cmp "$tmp/merged.data" "$shm/merged.data"
	rm -rf "$shm"
fi

cp "$tmp/perf.data" "$tmp/short.data"
truncate -s $(($(stat -c %s "$tmp/perf.data") / 2)) "$tmp/short.data"
"$mmap3" merge "$tmp/short.data" "$tmp/side.data" -o "$tmp/bad.data" 2>"$tmp/err"
check "a truncated perf.data fails with status 1" test $? -eq 1
check "... naming the file and the offset" grep -qE "^mmap3: $tmp/short.data: offset [0-9]+: " "$tmp/err"
check "... and leaves no output" sh -c "! ls $tmp/bad.data* 2>/dev/null"
"$mmap3" merge "$tmp/perf.data" "$tmp/perf.data" -o "$tmp/bad.data" 2>"$tmp/err"
check "perf.data given as the side file is refused" grep -q 'not an mmap3 side file' "$tmp/err"
# Pipe mode (perf record -o -): merged into a file-mode perf.data.
perf record -q -e cpu-clock -o - -- sleep 0.05 >"$tmp/pipe.data" 2>/dev/null
first=$("$mmap3" dump --json "$tmp/pipe.data" | python3 -c '
import json, sys
print(min(int(r["time"]) for r in json.load(sys.stdin)["records"] if int(r.get("time", 0))))')
"$side_write" "$tmp/pipe-side.data" "$first" >/dev/null
"$mmap3" merge --all-processes "$tmp/pipe.data" "$tmp/pipe-side.data" -o "$tmp/from-pipe.data" 2>"$tmp/err"
check "pipe-mode input merges" test $? -eq 0
for perf in $(tap_perfs); do
	by=$(tap_perf_label $perf)
	check "... into a file perf reads with all of perf's samples ($by)" \
		sh -c "$perf script -i $tmp/pipe.data | wc -l > $tmp/a; $perf script -i $tmp/from-pipe.data | wc -l > $tmp/b; cmp $tmp/a $tmp/b && test \$(cat $tmp/a) -gt 0"
	check "... and mmap3's mapping with its build-id ($by)" \
		sh -c "$perf script -i $tmp/from-pipe.data --show-mmap-events | grep -q '<101112131415161718191a1b1c1d1e1f20212223>.*/usr/bin/prog'"
	check "... and mmap3's module in the build-id table ($by)" \
		sh -c "$perf buildid-list -i $tmp/from-pipe.data | grep -q 'testmod'"
done
check "mmap3 dump reads pipe mode too" sh -c "$mmap3 dump $tmp/pipe.data | grep -q ' records\$'"

tap_done
