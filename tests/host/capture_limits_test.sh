#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What --capture may cost (mmap3 record with the stand-in device,
# mmap3-fake): a user can map one page of a sparse file of any size
# that starts with a valid ELF, which root would copy whole into DIR.  A
# file larger than --capture-max-file (default 512M) costs one read,
# never a copy; the files captured add up to no more than
# --capture-max-total (default 4G); a file whose build-id is no longer
# the mapped one is found out before it is copied.  Each file not
# captured is counted in the summary.  Prints TAP.
#
#   tests/host/capture_limits_test.sh MMAP3-FAKE
set -u

fake=$1
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

# prog N SIZE: a program with build-id 0N..., then zeros (a hole) to SIZE.
prog()
{
	printf 'int main(void) { return %d; }\n' "$1" >p$1.c
	cc -o p$1 p$1.c -Wl,--build-id=0x0$1aabbccddeeff00112233445566778899aabbcc
	truncate -s "$2" p$1
}
link() { echo "DIR/.build-id/0$1/aabbccddeeff00112233445566778899aabbcc"; }

# run NAME ARGS...: mmap3 record --capture DIR ARGS of the files in pairs;
# status in rc, messages in err, bytes the device gave in bytes.
run()
{
	MMAP3_FAKE=files=$tmp/pairs,stats=$tmp/stats$FAKE_EXTRA "$fake" record -o side.data \
		--capture DIR "$@" -- true 2>err
	rc=$?
	bytes=$(awk '{ print $2 }' stats 2>/dev/null)
	sed 's/^/# /' err
}

prog 1 1T
printf '%s\0%s\0' "$tmp/p1" /usr/lib/libhuge.so >pairs
FAKE_EXTRA=
run
check "a 1 TB sparse ELF file with the default limits: status 0 (got $rc)" test $rc -eq 0
check "... not captured, in one read of a byte (the device gave $bytes bytes)" \
	sh -c "test '$bytes' = 1 && ! test -e $(link 1)"
check "... said, naming it" grep -q '^mmap3: /usr/lib/libhuge.so: larger than --capture-max-file (536870912 bytes); not captured' err
check "... and counted" grep -q '^mmap3: WARNING: 1 files not captured in DIR: 1 larger than --capture-max-file$' err
rm -rf DIR
run --capture-max-file 4M
check "with --capture-max-file 4M: not captured either, in one read (the device gave $bytes bytes)" \
	sh -c "test $rc -eq 0 && test '$bytes' = 1 && grep -q '1 larger than --capture-max-file' err"

# 3 MiB each: two fit in 7M, the third would pass it.
prog 2 3M
prog 3 3M
prog 4 3M
prog 5 4M
printf '%s\0%s\0' "$tmp/p2" /a "$tmp/p3" /b "$tmp/p4" /c "$tmp/p5" /d >pairs
rm -rf DIR
run --capture-max-file 4M --capture-max-total 7M
check "three files of 3 MiB and one of 4 MiB, --capture-max-total 7M: status 0 (got $rc)" test $rc -eq 0
check "... the first two captured" sh -c "cmp p2 $(link 2)/elf && cmp p3 $(link 3)/elf"
check "... the others not" sh -c "! test -e $(link 4) && ! test -e $(link 5)"
check "... said once" test "$(grep -c 'capture-max-total (7340032 bytes) reached' err)" = 1
check "... and counted" grep -q '^mmap3: WARNING: 2 files not captured in DIR: 2 past --capture-max-total$' err
check "... having read no more than 7 MiB and a byte per file (the device gave $bytes bytes)" \
	test "$bytes" -le $((7 * 1048576 + 16 * 65536))
rm -rf DIR
run --capture-max-file 4M --capture-max-total 0
check "a file of exactly --capture-max-file is captured; 0 is no total limit" \
	sh -c "test $rc -eq 0 && cmp p5 $(link 5)/elf && cmp p4 $(link 4)/elf && grep -q 'captured 4 files' err"

# Rewritten after it was mapped: found out before the 64 MiB are copied.
prog 6 64M
printf '%s\0%s\0' "$tmp/p6" /usr/bin/replaced >pairs
rm -rf DIR
FAKE_EXTRA=,changed=1
run
check "a file whose build-id is no longer the mapped one: status 0 (got $rc)" test $rc -eq 0
check "... not captured, said and counted" \
	sh -c "grep -q '^mmap3: /usr/bin/replaced changed after it was mapped (another build-id); not captured' err &&
	       grep -q ', 1 changed after mapping' err && ! test -e $(link 6)"
check "... found out before it was copied (the device gave $bytes of its 64 MiB)" \
	test "$bytes" -lt 1048576
FAKE_EXTRA=

for bad in -1 1T5 x 99999999999999999999G; do
	"$fake" record -o side.data --capture DIR --capture-max-file "$bad" -- true 2>err
	rc=$?
	check "--capture-max-file $bad: a usage error (status $rc)" \
		sh -c "test $rc -eq 2 && grep -q 'capture-max-file $bad: not a size' err"
done
"$fake" record --help >help.txt
check "record --help names both limits and their defaults" \
	sh -c "grep -q -- '--capture-max-file N .*' help.txt && grep -q 'default 512M' help.txt &&
	       grep -q -- '--capture-max-total N .*default 4G' help.txt"

tap_done
