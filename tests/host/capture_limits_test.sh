#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What --capture may cost (mmap3 record with the stand-in device,
# mmap3-fake): a user can map one page of a sparse file of any size
# that starts with a valid ELF, which root would copy whole into DIR.  A
# file larger than --capture-max-file (default 512M) costs one read,
# never a copy; the files captured add up to no more than
# --capture-max-total (default 4G); what is made in DIR (files, links,
# directories: each component of a mapped path is one) to no more than
# --capture-max-files (default 500,000), and no path deeper than 128
# components is made at all; a file whose build-id is no longer the
# mapped one is found out before it is copied.  Each file not captured is
# counted in the summary.  Prints TAP.
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
	bytes=$(awk '/^capture_bytes / { print $2 }' stats 2>/dev/null)
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

# Files, links and directories: the vdso, kept first, costs .build-id,
# its XX, [vdso], its id's directory, vdso and the link (6); /a its XX,
# a, its id's directory, elf and the link (5), /b 5; /c/d would pass 16.
printf '%s\0%s\0' "$tmp/p2" /a "$tmp/p3" /b "$tmp/p4" /c/d "$tmp/p5" /e >pairs
rm -rf DIR
run --capture-max-files 16
check "--capture-max-files 16, four files: status 0 (got $rc)" test $rc -eq 0
check "... /a and /b captured" sh -c "cmp p2 $(link 2)/elf && cmp p3 $(link 3)/elf"
check "... the others not" sh -c "! test -e $(link 4) && ! test -e $(link 5)"
check "... 16 made in DIR ($(find DIR -mindepth 1 | wc -l))" test "$(find DIR -mindepth 1 | wc -l)" -eq 16
check "... the limit said once" \
	test "$(grep -c 'capture-max-files (16 files, links and directories) reached: /c/d and' err)" = 1
check "... and counted" grep -q '^mmap3: WARNING: 2 files not captured in DIR: 2 past --capture-max-files$' err
run --capture-max-files 16
check "... run again (a budget of its own): the two there cost nothing, counted as there" \
	grep -q 'captured 2 files (7 MB) in DIR, 2 there already' err

# A path of 1,900 components (as a user may map) would be 1,900 directories.
deep=$(printf 'd/%.0s' $(seq 1899))x
printf '%s\0/%s\0%s\0/%s\0' "$tmp/p2" "$deep" "$tmp/p3" "$(printf 'd/%.0s' $(seq 127))x" >pairs
rm -rf DIR
run
check "a file at a path of 1,900 components: not captured, said" \
	grep -q "^mmap3: /d/d/.*: a path of 1900 components, more than 128; not captured" err
check "... counted" grep -q '1 files not captured in DIR: 1 with paths too long or deep for it' err
check "... nothing of it made ($(find DIR -name d | wc -l) directories named d)" \
	sh -c "test $(find DIR -name d | wc -l) -eq 127 && ! test -e $(link 2)"
check "... one of 128 components captured" cmp p3 "$(link 3)/elf"

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
check "record --help names the limits and their defaults" \
	sh -c "grep -q -- '--capture-max-file N .*' help.txt && grep -q 'default 512M' help.txt &&
	       grep -q -- '--capture-max-total N .*default 4G' help.txt &&
	       grep -A1 -- '--capture-max-files N' help.txt | grep -q 'default 500000'"
for bad in -1 x 1k; do
	"$fake" record -o side.data --capture DIR --capture-max-files "$bad" -- true 2>err
	rc=$?
	check "--capture-max-files $bad: a usage error (status $rc)" \
		sh -c "test $rc -eq 2 && grep -q 'capture-max-files $bad: not a number' err"
done

tap_done
