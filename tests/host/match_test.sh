#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Matching that follows time (issue #12, 5), judged by the host's perf:
# a process maps one range twice (dlopen, dlclose, upgrade, dlopen), so
# perf has two identical MMAP2 records and mmap3 two records of different
# build-ids; each of perf's must take mmap3's of its own time.  perf's
# records of what was mapped when it started carry no time and take the
# oldest; mmap3's later record of that range, which perf lacks, is added.
# Prints TAP.
#
#   tests/host/match_test.sh MMAP3
set -u

mmap3=$1
craft=$(cd "$(dirname "$0")" && pwd)/craft.py
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

A=a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3
B=b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3
"$craft" reload-perf perf.data
"$craft" reload-side side.data
"$mmap3" merge perf.data side.data -o merged.data 2>err
check "merge exits 0" test $? -eq 0
check "... giving 3 of perf's mappings mmap3's build-id and adding 1 record" \
	grep -q '3 of perf.s mappings given mmap3.s build-id, 1 records added' err
perf script -i merged.data --show-mmap-events 2>/dev/null | grep 'PERF_RECORD_MMAP2' >mmaps
sed 's/^/# /' mmaps
check "perf's first mapping of the reloaded range takes the first build-id" \
	sh -c "sed -n '/libreload/p' mmaps | sed -n 1p | grep -q '0.000001: .*<$A>'"
check "perf's second mapping of it takes the second build-id, not the first again" \
	sh -c "sed -n '/libreload/p' mmaps | sed -n 2p | grep -q '0.000003: .*<$B>'"
check "perf's mapping made at its start (no time) takes the oldest" \
	sh -c "sed -n '/libstart/p' mmaps | sed -n 1p | grep -q '<$A>'"
check "mmap3's later mapping of that range, which perf lacks, is added at its time" \
	sh -c "sed -n '/libstart/p' mmaps | sed -n 2p | grep -q '0.000002: .*<$B>'"
check "no other mapping is added" test "$(wc -l <mmaps)" -eq 4
check "perf report reads it with no out-of-order events" \
	sh -c "! perf report -i merged.data --stdio 2>&1 | grep -q 'out of order'"

tap_done
