#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf's habits, taken as perf takes them (issue #24): mmap3 --version;
# mmap3 help COMMAND; --opt=value on every subcommand; every clock name
# perf record -k takes; -p with a comma list; -q; the sizes record
# refuses said as what it wants; JSON whose 64-bit numbers no reader
# rounds.  mmap3-fake (a stand-in for the device) records.  Prints TAP.
#
#   tests/host/habits_test.sh MMAP3 MMAP3-FAKE
set -u

mmap3=$1
fake=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_tmpdir || exit 1

version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
out=$("$mmap3" --version 2>&1)
check "mmap3 --version: status 0 and the version, without a module: $out" \
	sh -c "MMAP3_DEVICE=/nonexistent '$mmap3' --version >/dev/null && echo '$out' | grep -q '^mmap3 version $version (ABI 2\.[0-9]*)$'"
"$mmap3" help record >help.txt 2>&1
check "mmap3 help record: status 0, record's usage" \
	sh -c "test $? -eq 0 && grep -q '^usage: mmap3 record' help.txt"
"$mmap3" help frobnicate >/dev/null 2>&1
check "mmap3 help of an unknown command: status 2" test $? -eq 2

# Every clock name perf record -k takes (tools/perf/builtin-record.c).
for k in mono monotonic CLOCK_MONOTONIC clock_monotonic 1 raw monotonic_raw \
	 CLOCK_MONOTONIC_RAW 4 real realtime CLOCK_REALTIME 0 boot boottime 7 tai 11; do
	MMAP3_FAKE=rate=10 "$fake" record -q -k "$k" -o k.data -- true 2>err
	rc=$?
	check "record -k $k: status 0 (got $rc)" test $rc -eq 0
done
MMAP3_FAKE=rate=10 "$fake" record --clock=CLOCK_BOOTTIME -q -o k.data -- true 2>err
check "record --clock=CLOCK_BOOTTIME (--opt=value)" test $? -eq 0
"$fake" record -k sundial -o k.data -- true 2>err
rc=$?
check "record -k of no clock: status 2 (got $rc), saying which there are" \
	sh -c "test $rc -eq 2 && grep -q 'not a clock; expected one of local' err"
"$fake" record -b 3 -o b.data -- true 2>err
rc=$?
check "record -b 3: status 2 (got $rc), saying what a buffer size is" \
	sh -c "test $rc -eq 2 && grep -q 'buffer-size 3: expected a power of two from 64k to 1G' err"
MMAP3_FAKE=rate=10,filter=$PWD/filter "$fake" record -q -p 1,2,3 -p 4 -o p.data -- true 2>err
check "record -p 1,2,3 -p 4: a comma list, as perf record -p" test $? -eq 0
check "... and their children, as perf record -p: MMAP3_FILTER_INHERIT ($(cat filter))" \
	grep -qx "flags 4 pids 1,2,3,4" filter
MMAP3_FAKE=rate=10,filter=$PWD/filter "$fake" record -q -p 5 --no-inherit -o p.data -- true 2>err
check "record -p 5 --no-inherit: the process alone, as perf's --no-inherit ($(cat filter))" \
	grep -qx "flags 0 pids 5" filter
MMAP3_FAKE=rate=10,filter=$PWD/filter "$fake" record -q -o p.data -- true 2>err
check "record without -p: every process, nothing to inherit ($(cat filter))" \
	grep -qx "flags 0 pids " filter
"$fake" record -p 1,x -o p.data -- true 2>err
rc=$?
check "record -p 1,x: status 2 (got $rc)" sh -c "test $rc -eq 2 && grep -q 'not a list of process ids' err"
MMAP3_FAKE=rate=10 "$fake" record -q -o q.data -- true 2>err
check "record -q: nothing said: $(cat err)" test ! -s err
# Long enough for mappings to come: the JSON check below reads them.
MMAP3_FAKE=rate=100 "$fake" record -o q.data -- sleep 0.3 2>err
check "record without -q: its summary" grep -q '^mmap3: wrote q.data' err
"$mmap3" buildid --pid=x 2>err
rc=$?
check "buildid --pid=x (--opt=value): not a process id (status $rc)" \
	sh -c "test $rc -eq 2 && grep -q -- '--pid x: not a process id' err"
MMAP3_DEVICE=/nonexistent "$mmap3" buildid --module=ext4 2>err
check "buildid --module=NAME (--opt=value) asks the device" grep -q '/nonexistent: No such file' err

# JSON: addresses, times and counts as strings.
"$mmap3" dump --json q.data >q.json
check "dump --json: addresses, lengths, offsets and times as strings" python3 -c '
import json, sys
recs = [r for r in json.load(open("q.json"))["records"] if r["type"] == "MMAP2"]
sys.exit(not recs or not all(isinstance(r[k], str) for r in recs
                             for k in ("addr", "len", "pgoff", "time")))'

tap_done
