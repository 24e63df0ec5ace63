#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The capture worker beside mmap3 record's reader, under ThreadSanitizer
# (mmap3-fake-tsan): files copied one a byte at a time while 500
# mappings a second are read, with the status line drawn on a terminal
# (script(1) gives one) and without; no data race, every file captured
# or counted.  Prints TAP.
#
#   tests/host/capture_thread_test.sh MMAP3-FAKE-TSAN
set -u

fake=$1
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

for i in 1 2 3; do
	printf 'int main(void) { return %d; }\n' $i >p$i.c
	cc -o p$i p$i.c -Wl,--build-id=0x0${i}aabbccddeeff00112233445566778899aabbcc
done
printf '%s\0%s\0' "$tmp/p1" /usr/bin/one "$tmp/p2" /usr/bin/two "$tmp/p3" /usr/bin/three >pairs
run="MMAP3_FAKE=files=$tmp/pairs,slowread=2:5,rate=500 TSAN_OPTIONS=halt_on_error=0 $fake record \
	-o side.data --capture DIR --capture-max-seconds 1 -- sleep 2"
for how in pipe terminal; do
	rm -rf DIR side.data
	if [ $how = terminal ]; then
		script -qec "$run" /dev/null >out 2>&1
	else
		sh -c "$run" >out 2>&1
	fi
	rc=$?
	check "on a $how: record exits 0 (got $rc)" test $rc -eq 0
	check "... no data race (ThreadSanitizer)" sh -c "! grep -q ThreadSanitizer out"
	check "... two files captured, the slow one counted" \
		sh -c "grep -q 'captured 2 files' out && grep -q '1 not read within --capture-max-seconds' out"
done
check "on a terminal, the status line was drawn" grep -q 'mappings, 0 modules, .* captured' out
tap_done
