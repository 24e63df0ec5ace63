#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every perf.data shape handled or refused by name (issue #12, 4), judged
# by the host's perf: AUX trace data (Intel BTS, crafted: no AUX PMU
# here) keeps its trace and a HEADER_AUXTRACE index that follows it;
# perf record --threads directories and perf record -z data are refused
# by name with advice that works with perf 6.1; pipe mode's closing
# FEATURE record is no feature; pipe-mode tracing data becomes the
# tracing_data feature; inputs of another clock or host are refused.
# Prints TAP.
#
#   tests/host/shapes_test.sh MMAP3
set -u

mmap3=$1
craft=$(cd "$(dirname "$0")" && pwd)/craft.py
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

# features FILE: the feature bits set in a file-mode header, one a line.
features()
{
	python3 -c "
import struct, sys
f = struct.unpack_from('<4Q', open(sys.argv[1], 'rb').read(), 72)
print('\n'.join(str(b) for b in range(256) if f[b // 64] >> (b % 64) & 1))" "$1"
}

has_feature()
{
	features "$1" | grep -qx "$2"
}

lacks_feature()
{
	! features "$1" | grep -qx "$2"
}

# auxtrace_index_ok FILE: each index entry is an AUXTRACE record of its size.
auxtrace_index_ok()
{
	python3 -c "
import struct, sys
d = open(sys.argv[1], 'rb').read()
do, ds = struct.unpack_from('<QQ', d, 40)
f = struct.unpack_from('<4Q', d, 72)
bits = [b for b in range(256) if f[b // 64] >> (b % 64) & 1]
off, size = struct.unpack_from('<QQ', d, do + ds + 16 * bits.index(18))
nr = struct.unpack_from('<Q', d, off)[0]
assert nr == 2, nr
for k in range(nr):
    fo, sz = struct.unpack_from('<QQ', d, off + 8 + 16 * k)
    t, m, s = struct.unpack_from('<IHH', d, fo)
    assert t == 71 and s == sz, (k, fo, t, s, sz)
" "$1"
}

# The first time of a perf.data's records, in ns: a crafted side file's
# base, so its times fall within a real perf record's.
first_time()
{
	"$mmap3" dump --json "$1" | python3 -c '
import json, sys
print(min(int(r["time"]) for r in json.load(sys.stdin)["records"] if int(r.get("time", 0))))'
}

# AUX trace: two AUXTRACE records, mmap3's mapping placed between them.
"$craft" bts-perf bts.data
"$craft" bts-side bts-side.data
"$mmap3" merge bts.data bts-side.data -o bts-merged.data 2>err
check "AUX trace data (Intel BTS) merges" test $? -eq 0
check "... mmap3's record went between the two AUXTRACE records" \
	sh -c "'$mmap3' dump bts-merged.data | grep -A3 'AUXTRACE ' | grep -q 'MMAP2.*mmap3-craft/other'"
check "... every HEADER_AUXTRACE index entry points at its moved AUXTRACE record" \
	auxtrace_index_ok bts-merged.data
perf script -i bts.data >bts.script 2>&1
perf script -i bts-merged.data >merged.script 2>&1
check "perf decodes both AUXTRACE buffers of the input (8 branches)" \
	test "$(grep -c 'trace error type' bts.script)" -eq 8
check "... and of the merged file, through the rewritten index" \
	test "$(grep -c 'trace error type' merged.script)" -eq 8
"$mmap3" dump bts.data >dump.txt 2>&1
check "dump reads past each AUXTRACE record's trace" grep -q '^11 records$' dump.txt

tap_need_perf_record
"$craft" reload-side side.data

# perf record --threads: a directory of data.N files.
perf record -q --threads -e cpu-clock -o threads.data -- true >/dev/null 2>&1
for input in threads.data threads.data/data; do
	"$mmap3" merge $input side.data -o out.data 2>err
	check "a perf record --threads directory ($input) is refused by name (status 1)" test $? -eq 1
	check "... saying how to record instead" \
		grep -q "written by perf record --threads (HEADER_DIR_FORMAT.*record again without --threads" err
done
"$mmap3" dump threads.data >/dev/null 2>err
check "dump refuses it too" grep -q "perf record --threads" err

# perf record -z: perf 6.1's inject keeps the records compressed, so the
# advice is to record without -z.
perf record -q -z -e cpu-clock -o z.data -- true >/dev/null 2>&1
"$mmap3" merge z.data side.data -o out.data 2>err
check "compressed data (perf record -z) is refused by name (status 1)" test $? -eq 1
check "... with advice that works with perf 6.1: record again without -z" \
	grep -q "compressed perf.data (perf record -z) is not supported: record again without -z" err
perf record -q -z -e cpu-clock -o - -- true 2>/dev/null >z.pipe
"$mmap3" dump z.pipe >/dev/null 2>err
check "... in pipe mode too" grep -q "record again without -z" err
check "no output was left" test ! -e out.data

# Pipe mode ends its features with an empty FEATURE record (perf 6.1:
# HEADER_LAST_FEATURE, 32): a mark, not a feature.
perf record -q -e cpu-clock -o - -- true 2>/dev/null >p.pipe
"$mmap3" dump p.pipe >dump.txt 2>&1
check "pipe mode's last FEATURE record is the end of features" grep -q 'FEATURE *end of features' dump.txt
"$craft" reload-side p-side.data "$(first_time p.pipe)"
"$mmap3" merge p.pipe p-side.data -o p-merged.data 2>err
check "pipe-mode input merges" test $? -eq 0
check "... and the end mark did not become feature bit 32" lacks_feature p-merged.data 32
check "... (whose other features are there: hostname)" has_feature p-merged.data 3
check "... whose header perf reads" sh -c "perf report -i p-merged.data --header-only 2>&1 | grep -q 'hostname'"

# Pipe-mode tracing data: the tracing_data feature of the merged file.
if perf record -q -e sched:sched_switch -a -o - -- sleep 0.1 2>/dev/null >tp.pipe &&
   perf script -i tp.pipe 2>/dev/null | grep -q prev_comm; then
	"$craft" reload-side tp-side.data "$(first_time tp.pipe)"
	"$mmap3" merge tp.pipe tp-side.data -o tp-merged.data 2>err
	check "pipe-mode tracepoint data merges" test $? -eq 0
	check "... and perf reads the tracepoints' fields from it" \
		sh -c "perf script -i tp-merged.data 2>/dev/null | grep -q 'sched:sched_switch: prev_comm='"
else
	tap_skip "perf cannot record tracepoints here"
fi

# Only what the user asked for: perf recorded process 100 alone; mmap3's
# mapping of process 200 stays out unless --all-processes.
"$craft" reload-perf only100.data
"$craft" others-side others.data
"$mmap3" merge only100.data others.data -o only.data 2>err
check "merge: mmap3's records of a process perf did not record are left out, said: $(grep 'left out' err)" \
	sh -c "grep -q 'left out 1 mappings of processes perf did not record' err &&
	       ! '$mmap3' dump only.data | grep -q secret && '$mmap3' dump only.data | grep -q libreload"
"$mmap3" merge --all-processes only100.data others.data -o all.data 2>err
check "... and added with --all-processes" sh -c "'$mmap3' dump all.data | grep -q secret"
# A side file of another session: its times do not overlap perf's.
"$craft" reload-side later-side.data 1000000000000
"$mmap3" merge only100.data later-side.data -o late.data 2>err
rc=$?
check "a side file whose times do not overlap perf.data's is refused (status $rc)" \
	sh -c "test $rc -eq 1 && grep -q 'they do not overlap, so they are not of one session' err"

# Clocks and hosts.
perf record -q -k mono -e cpu-clock -o mono.data -- true >/dev/null 2>&1
"$mmap3" merge mono.data side.data -o out.data 2>err
check "perf record -k mono with a side file of perf's default clock is refused" test $? -eq 1
check "... naming both clocks and the fix" \
	grep -q "with the clock monotonic, side.data with local (perf's default).*record mmap3 with --clock" err
"$craft" mono-side mono-side.data "$(first_time mono.data)"
"$mmap3" merge --all-processes mono.data mono-side.data -o out.data 2>err
check "... and merges with mmap3 record --clock monotonic's" test $? -eq 0
rm -f out.data
"$craft" reload-perf perf.data
"$craft" other-host-side other.data
"$mmap3" merge perf.data other.data -o out.data 2>err
check "a side file of another host is refused" test $? -eq 1
check "... naming both hosts" grep -q "on host $(uname -n), other.data on host elsewhere" err
"$craft" huge-lost-side huge.data
"$mmap3" merge perf.data huge.data -o out.data 2>err
check "losses past 2^64 add up to the most there is, not to 0: $(grep -i lost err)" \
	grep -q '18446744073709551615' err
rm -f out.data
"$craft" escape-host-side esc.data
"$mmap3" merge perf.data esc.data -o out.data 2>err
check "a host name with terminal escapes is refused too (status 1)" test $? -eq 1
check "... and said escaped, no control character raw: $(cat -v err)" \
	sh -c "grep -q 'esc.data on host \\\\x1b\]0;owned\\\\x07\\\\x1b\[31mred' err &&
	       ! LC_ALL=C grep -q \"\$(printf '\\033')\" err"

tap_done
