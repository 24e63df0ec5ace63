#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every record validated before use (issue #12, 3): crafted perf.data and
# side files each too short for a field, with a name that does not end,
# a size that is no multiple of 8, sections outside the file; a perf.data
# left by a killed perf record; malformed records from the device (the
# stand-in of mmap3-fake).  Each must give status 1 and one line naming
# the file or device, the offset and what was expected: never 255, never
# a sanitizer report (the binaries are built with ASan and UBSan).  And
# what perf itself writes 4-byte padded must still read.  Prints TAP.
#
#   tests/host/records_test.sh MMAP3 MMAP3-FAKE
set -u

mmap3=$1
fake=$2
craft=$(cd "$(dirname "$0")" && pwd)/craft.py
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

# one_error NAME PATTERN CMD...: status 1 and exactly one line on stderr,
# matching PATTERN.
one_error()
{
	local name=$1 pattern=$2 rc
	shift 2
	"$@" >/dev/null 2>err
	rc=$?
	check "$name: status 1 (got $rc)" test $rc -eq 1
	check "$name: one line: $(head -c 150 err | head -n 1)" \
		sh -c "test \$(wc -l <err) -eq 1 && grep -qE -- '$pattern' err"
}

"$craft" reload-perf perf.data
"$craft" reload-side side.data
for name in $("$craft" --malformed); do
	"$craft" "$name" "$name.data"
	one_error "dump $name" "^mmap3: $name.data: offset [0-9]+: .*(expected|overlap)" \
		"$mmap3" dump "$name.data"
	case $name in
	side-*)
		one_error "merge with the side file $name" "^mmap3: $name.data: offset [0-9]+: " \
			"$mmap3" merge perf.data "$name.data" -o out.data ;;
	*)
		one_error "merge of $name" "^mmap3: $name.data: offset [0-9]+: " \
			"$mmap3" merge "$name.data" side.data -o out.data ;;
	esac
done
check "no output was left by any of them" test ! -e out.data

if perf record -q -e cpu-clock -o ok.data -- true >/dev/null 2>&1; then
	perf record -q -e cpu-clock -o killed.data -- sleep 5 >/dev/null 2>&1 &
	pid=$!
	sleep 1
	kill -KILL $pid
	wait $pid 2>/dev/null
	one_error "a perf.data left by a killed perf record" \
		"^mmap3: killed.data: offset 48: data size 0: the file is incomplete, as perf warns .*properly terminated" \
		"$mmap3" dump killed.data
	# perf inject -b pads its build-id records to 4 bytes: read, copied aligned.
	perf inject -b -i ok.data -o injected.data 2>/dev/null
	"$mmap3" dump injected.data >dump.txt 2>err
	check "perf inject -b output (BUILD_ID records of 4-byte multiples) reads: status 0" \
		sh -c "test -z \"\$(cat err)\" && grep -q ' BUILD_ID ' dump.txt"
	perf record -q -e cpu-clock -o - -- true 2>/dev/null | perf inject -b >injected.pipe 2>/dev/null
	"$mmap3" dump injected.pipe >dump.txt 2>err
	check "... and so does perf inject -b in pipe mode (FEATURE records too)" \
		sh -c "test -z \"\$(cat err)\" && grep -q ' FEATURE ' dump.txt"
else
	tap_skip "perf record does not work on this machine"
fi

# From the device: the stand-in sends one bad record after the kernel's.
for bad in short odd big nonul longid ns; do
	MMAP3_FAKE=bad=$bad "$fake" record -o dev-$bad.data -- true >/dev/null 2>err
	rc=$?
	check "a malformed record from the device ($bad): status 1 (got $rc)" test $rc -eq 1
	check "... one line naming the device, the offset and what was expected: $(head -n 1 err)" \
		grep -qE '^mmap3: fake-mmap3: offset 160 of the records read: .*, expected ' err
	check "... and no side file" test ! -e dev-$bad.data
done

# The mapped buffer (ring=1), walked through every gap a record can leave
# before its end (walk=), pads of 8 bytes included: nothing lost, through
# record's reader and inject's.
MMAP3_FAKE=ring=1,walk=$tmp/walk "$fake" record -b 64k -o walk.data >/dev/null 2>err &
pid=$!
tap_wait_for walk 30
kill -INT $pid
wait $pid
rc=$?
sed 's/^/# /' err
n=$(sed -n 's/^records //p' walk)
pads=$(sed -n 's/^pads //p' walk)
# The records are 8 bytes apart, the smaller one 8 more than the last gap.
want=$(seq -s ' ' 8 8 "$(echo "$pads" | awk '{ print $NF }')")
check "the stand-in made a pad of every size from 8 bytes to a record's less 8 ($pads)" \
	sh -c "test -n '$pads' && test '$pads' = '$want' && test \$(echo '$pads' | wc -w) -gt 20"
check "record through every gap of a 64 KiB mapped buffer: status 0 (got $rc)" test $rc -eq 0
check "... all $n mappings in the side file" \
	sh -c "test \$('$mmap3' dump walk.data | grep -c ' /usr/lib/walk-') -eq '$n'"
if perf record -q -e cpu-clock -o - -- true >stream.data 2>/dev/null; then
	rm -f walk
	# perf records while the walk goes on: inject adds what falls in its
	# time.  A second more after it: the stand-in stamps CLOCK_MONOTONIC,
	# perf its own clock, and what is newer than perf's last record is
	# left out.
	perf record -q -e cpu-clock -o - -- sh -c ". '$(dirname "$0")/../lib/tap.sh'; tap_wait_for walk 30; sleep 1" \
		2>/dev/null | MMAP3_FAKE=ring=1,walk=$tmp/walk "$fake" inject --all-processes \
		--no-capture -b 64k -o walk-inject.data 2>err
	rc=$?
	sed 's/^/# /' err
	n=$(sed -n 's/^records //p' walk)
	check "inject through every gap of a 64 KiB mapped buffer: status 0 (got $rc)" test $rc -eq 0
	check "... all $n mappings in its output" \
		sh -c "test \$('$mmap3' dump walk-inject.data | grep -c ' /usr/lib/walk-') -eq '$n'"
else
	tap_skip "perf record does not work on this machine"
fi
MMAP3_FAKE=ring=1,bad=pad "$fake" record -o dev-pad.data -- true >/dev/null 2>err
rc=$?
check "a pad short of the mapped buffer's end: status 1 (got $rc)" test $rc -eq 1
check "... one line naming the device, the offset and what was expected: $(head -n 1 err)" \
	grep -qE '^mmap3: fake-mmap3: offset 160 of the mapped records: a pad of 16 bytes, expected one of the [0-9]+ bytes to the buffer.s end' err

# The control page's own size (ABI 2.6): a module before 2.6 says none, a
# size that cannot be a control's is refused, naming what was expected.
MMAP3_FAKE=ring=1,ctlsize=0 "$fake" record -o ctl-old.data -- true >/dev/null 2>err
rc=$?
check "a control page of a module before 2.6 (no size): status 0 (got $rc)" test $rc -eq 0
for n in 12 4100; do
	MMAP3_FAKE=ring=1,ctlsize=$n "$fake" record -o ctl-$n.data -- true >/dev/null 2>err
	rc=$?
	check "a control page that says $n bytes: status 1 (got $rc)" test $rc -eq 1
	check "... one line saying what was expected: $(head -n 1 err)" \
		grep -qE "^mmap3: fake-mmap3: the mapped buffer's control page says it is $n bytes, expected 0 or a multiple of 8 from 32 to [0-9]+\$" err
done

tap_done
