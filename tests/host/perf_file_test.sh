#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The perf.data writer and reader, judged by stock perf (every perf of
# tap_perfs: the release's, and sid's perf 7.x where present): a side file made
# by side_write must read in perf script and perf buildid-list as
# intended, and mmap3 dump must show it, or name the offset and the
# problem in broken copies of it.  Prints TAP.
#
#   tests/host/perf_file_test.sh SIDE_WRITE MMAP3
set -u

side_write=$1
mmap3=$2
. "$(dirname "$0")/../lib/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# expect_error NAME FILE PATTERN: mmap3 dump FILE fails with status 1 and
# one error line matching PATTERN.
expect_error()
{
	local name=$1 file=$2 pattern=$3
	"$mmap3" dump "$file" >/dev/null 2>"$tmp/err"
	local rc=$?
	check "$name: status 1" test $rc -eq 1
	check "$name: says where and what" grep -qE "^mmap3: $file: offset [0-9]+: $pattern" "$tmp/err"
}

# patch FILE OFFSET HEXBYTES: overwrite bytes in place.
patch()
{
	printf "$(echo "$3" | sed 's/\(..\)/\\x\1/g')" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

f=$tmp/side.data
check "side_write writes a side file" "$side_write" "$f"
# Judged by each perf (tap_perfs).
for perf in $(tap_perfs); do
	by=$(tap_perf_label $perf)
	check "$by runs" $perf --version
	$perf script -i "$f" --show-mmap-events >"$tmp/script" 2>/dev/null
	check "$by script: kernel map at _text" grep -q 'PERF_RECORD_MMAP -1/0: .*\[kernel.kallsyms\]_text' "$tmp/script"
	check "$by script: module map" grep -q 'PERF_RECORD_MMAP -1/0: \[0xffffffffc0000000(0x4000) @ 0\]: x \[testmod\]' "$tmp/script"
	check "$by script: mapping with its 20-byte build-id" \
		grep -q 'PERF_RECORD_MMAP2 100/100: \[0x400000(0x2000) @ 0x1000 <101112131415161718191a1b1c1d1e1f20212223>\]: r-xp /usr/bin/prog' "$tmp/script"
	check "$by script: the same path, another build-id, later" \
		grep -q 'PERF_RECORD_MMAP2 103/103: .*<303132333435363738393a3b3c3d3e3f40414243>.*/usr/bin/prog' "$tmp/script"
	check "$by script: a 32-byte build-id falls back to device and inode" \
		grep -q 'PERF_RECORD_MMAP2 101/101: \[0x500000(0x2000) @ 0x1000 08:01 1235 0\]: r-xp /usr/lib/libwide.so' "$tmp/script"
	check "$by script: records in time order" \
		sh -c "grep -o 'PERF_RECORD_MMAP2 10[0-9]' $tmp/script | tr -d '\n' | grep -q '100.*101.*102.*103'"
	$perf buildid-list -i "$f" >"$tmp/ids" 2>/dev/null
	check "$by buildid-list: the kernel" grep -q '^a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3 \[kernel.kallsyms\]$' "$tmp/ids"
	check "$by buildid-list: the module" grep -q '^b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3 \[testmod\]$' "$tmp/ids"
	check "$by buildid-list: the program" grep -q '/usr/bin/prog$' "$tmp/ids"
done

"$mmap3" dump "$f" >"$tmp/dump" 2>&1
check "dump: exit 0" test $? -eq 0
check "dump: every record" grep -q '^7 records$' "$tmp/dump"
check "dump: the lost count, as perf's lost samples, apart from its lost chunks" \
	grep -q 'LOST_SAMPLES 7 lost' "$tmp/dump"
check "dump: both build-ids of /usr/bin/prog in the table" \
	sh -c "grep -cE '^  [0-9a-f]{40} /usr/bin/prog\$' $tmp/dump | grep -qx 2"
"$mmap3" dump --json "$f" >"$tmp/json" 2>&1
check "dump --json: valid JSON with 7 records" \
	python3 -c "import json,sys; d=json.load(open('$tmp/json')); sys.exit(d['nr_records'] != 7 or len(d['build_ids']) != 4)"

cp "$f" "$tmp/short"
truncate -s 600 "$tmp/short"
expect_error "truncated in the data" "$tmp/short" 'data section \[232, \+672\), expected it after the header, inside the 600-byte file'
: >"$tmp/empty"
expect_error "empty file" "$tmp/empty" '0 bytes, too short for a perf.data header'
cp "$f" "$tmp/magic" && patch "$tmp/magic" 0 5858585858585858
expect_error "bad magic" "$tmp/magic" 'not a perf.data file: magic 0x5858585858585858, expected "PERFILE2"'
# The magic as a big-endian machine writes it.
cp "$f" "$tmp/swapped" && patch "$tmp/swapped" 0 32454c4946524550
expect_error "byte-swapped" "$tmp/swapped" 'byte-swapped perf.data'
# A file header claiming pipe mode: the records after it are garbage.
cp "$f" "$tmp/pipe" && patch "$tmp/pipe" 8 1000000000000000
expect_error "a file-mode body under a pipe-mode header" "$tmp/pipe" 'record of type 128 has size 0'
# Pipe mode without attrs.
printf 'PERFILE2\x10\x00\x00\x00\x00\x00\x00\x00' >"$tmp/noattr"
expect_error "pipe mode without an ATTR record" "$tmp/noattr" 'pipe-mode perf.data without an ATTR record'
cp "$f" "$tmp/compressed" && patch "$tmp/compressed" 75 08
expect_error "compressed" "$tmp/compressed" 'compressed perf.data \(perf record -z\) is not supported'
cp "$f" "$tmp/badrec" && patch "$tmp/badrec" 326 0000
expect_error "a record of size 0" "$tmp/badrec" 'record of type MMAP \(1\) has size 0, expected 8 to 584'

tap_done
