#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Captures stay inside DIR (issue #12, 1), end to end through mmap3
# record --capture with the stand-in device (mmap3-fake): mappings whose
# paths a process chose (memfd names with "/" and "..", control
# characters) are stored under their build-id beneath DIR, and names
# planted in DIR (a symbolic link out of it, a file where a directory
# goes, a FIFO where a file goes) are never written through; a DIR that
# is a symbolic link or that others may write to is refused.  Prints TAP.
#
#   tests/host/capture_record_test.sh MMAP3-FAKE
set -u

fake=$1
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

# prog N: a program with build-id 0N then fixed bytes.
prog()
{
	printf 'int main(void) { return %d; }\n' "$1" >p$1.c
	cc -o p$1 p$1.c -Wl,--build-id=0x0$1aabbccddeeff00112233445566778899aabbcc
}
for i in 1 2 3 4 5 6; do
	prog $i
done
id() { echo 0$1aabbccddeeff00112233445566778899aabbcc; }
link() { echo "DIR/.build-id/0$1/aabbccddeeff00112233445566778899aabbcc"; }

mkdir -p DIR outside
# Planted: a link out of DIR where a path's first directory goes, a file
# where another's goes, a FIFO where a build-id directory's "elf" goes.
ln -s "$tmp/outside" DIR/usr
: >DIR/opt
mkdir -p "DIR/tmp/$(id 6)"
mkfifo "DIR/tmp/$(id 6)/elf"
printf '%s\0%s\0' \
	"$tmp/p1" "/memfd:../../../escaped" \
	"$tmp/p2" "/memfd:a/b/../../c" \
	"$tmp/p3" "/bin/../../etc/x"$'\n'"y" \
	"$tmp/p4" "/usr/lib/libplanted.so" \
	"$tmp/p5" "/opt/prog" \
	"$tmp/p6" "/tmp" >pairs
MMAP3_FAKE=files=$tmp/pairs "$fake" record -o side.data --capture DIR -- true 2>err
rc=$?
cat err | sed 's/^/# /'
check "record --capture exits 0: planted names cost only their own capture" test $rc -eq 0
for i in 1 2 3; do
	check "mapping $i is captured under its build-id, byte for byte" cmp "p$i" "$(link $i)/elf"
done
check "a memfd named ../../../escaped stays one directory in DIR" \
	test -d "DIR/memfd:..%2F..%2F..%2Fescaped/$(id 1)"
check "a path with .. and a newline becomes plain escaped directories" \
	test -d "DIR/bin/%2E%2E/%2E%2E/etc/x%0Ay/$(id 3)"
check "nothing was written outside DIR" test -z "$(ls -A outside)"
check "nothing was written beside DIR" sh -c "test \"\$(ls -A | sort | tr '\n' ' ')\" = 'DIR err outside p1 p1.c p2 p2.c p3 p3.c p4 p4.c p5 p5.c p6 p6.c pairs side.data '"
check "the planted link was not followed, and said so" \
	grep -q "DIR/usr/lib/libplanted.so/.*: a symbolic link or no directory on the way.*not captured" err
check "the planted file was not written through" test ! -s DIR/opt
check "the FIFO at a file's name was not written through nor replaced" \
	sh -c "test -p 'DIR/tmp/$(id 6)/elf' && grep -q 'is not a regular file; not captured' err"
check "no .build-id link for what was not captured" sh -c "! test -e $(link 4) && ! test -e $(link 5)"
check "every .build-id link resolves inside DIR" \
	sh -c "for f in \$(find DIR/.build-id -type l); do realpath -e \"\$f\" | grep -q '^$tmp/DIR/' || exit 1; done"
check "captured files are 0600, new directories 0700" \
	sh -c "test \"\$(stat -c %a $(link 1)/elf)\" = 600 && test \"\$(stat -c %a DIR/.build-id)\" = 700"
check "no temporary file is left in DIR" sh -c "! find DIR -name '*.mmap3-*' | grep -q ."

# The same again: each is there already, nothing changes.
before=$(find DIR | sort | md5sum)
MMAP3_FAKE=files=$tmp/pairs "$fake" record -o side2.data --capture DIR -- true 2>err2
check "a second run finds them there (3 there already)" grep -q '0 files.*3 there already' err2
check "... and changes nothing" test "$before" = "$(find DIR | sort | md5sum)"

# DIR itself: no symbolic link, ours, writable by us alone.
ln -s DIR LINK
MMAP3_FAKE=files=$tmp/pairs "$fake" record -o side3.data --capture LINK -- true 2>err3
rc=$?
check "a capture DIR that is a symbolic link is refused: status 1 (got $rc)" test $rc -eq 1
check "... in one line naming it: $(head -n 1 err3)" \
	sh -c "test \$(wc -l <err3) -eq 1 && grep -q '^mmap3: LINK: a symbolic link, expected the capture directory itself' err3"
check "... before anything is recorded" test ! -e side3.data
chmod 0775 DIR
MMAP3_FAKE=files=$tmp/pairs "$fake" record -o side3.data --capture DIR -- true 2>err3
rc=$?
check "a group-writable capture DIR is refused: status 1 (got $rc), $(head -n 1 err3)" \
	sh -c "test $rc -eq 1 && grep -q '^mmap3: DIR: mode 0775, expected writable by its owner alone' err3"
chmod 0700 DIR

# A file the module will not hand out (EACCES: the opener may not read
# it) or cannot read in time (ETIMEDOUT: its filesystem hangs) costs that
# file only: the others are captured, the run exits 0, each is counted.
printf '%s\0%s\0' "$tmp/p1" "/usr/bin/one" "$tmp/p2" "/usr/bin/two" "$tmp/p3" "/usr/bin/three" >pairs3
for e in "13 it may not read:reading it is not allowed" \
	 "110 whose filesystem did not answer in time:its filesystem did not answer in time"; do
	errno=${e%% *} rest=${e#* } counted=${rest%%:*} said=${rest#*:}
	rm -rf DIR4
	MMAP3_FAKE=files=$tmp/pairs3,readerr=2:$errno "$fake" record -o side4.data --capture DIR4 -- true 2>err4
	rc=$?
	check "a capture read failing with errno $errno: record exits 0 (got $rc)" test $rc -eq 0
	check "... the other files are captured" sh -c "cmp p1 $(link 1 | sed s/DIR/DIR4/)/elf && cmp p3 $(link 3 | sed s/DIR/DIR4/)/elf"
	check "... that one is not, said: $(grep two err4)" \
		grep -q "^mmap3: /usr/bin/two: reading at offset [0-9]*: $said; not captured" err4
	check "... and counted" grep -q "^mmap3: WARNING: 1 files not captured in DIR4: 1 $counted" err4
done

# A build-id of one byte (ld --build-id=0x01: any user can) has no name
# in perf's cache (.build-id/01/ and nothing): that file is not captured,
# the others are, and the run goes on.
printf 'int main(void) { return 7; }\n' >p7.c
cc -o p7 p7.c -Wl,--build-id=0x07
printf '%s\0%s\0' "$tmp/p7" "/usr/bin/short" "$tmp/p1" "/usr/bin/one" >pairs5
rm -rf DIR5
MMAP3_FAKE=files=$tmp/pairs5 "$fake" record -o side5.data --capture DIR5 -- true 2>err5
rc=$?
check "a 1-byte build-id: record exits 0 (got $rc)" test $rc -eq 0
check "... the other file is captured" cmp p1 "$(link 1 | sed s/DIR/DIR5/)/elf"
check "... that one is not, said and counted: $(grep short err5 | head -n 1)" \
	sh -c "grep -q '^mmap3: /usr/bin/short: a build-id of 1 byte, too short' err5 &&
	       grep -q 'WARNING: 1 files not captured in DIR5: 1 with a build-id too short' err5"

# Captures never hold records up (issue #23, 5): files are copied by a
# thread of their own, so while one whose filesystem answers a byte at a
# time, each read in time, is read, the records of 2,000 mappings a
# second are all read (the stand-in's buffer is one page: a reader held
# up a moment loses records); that file is given up after
# --capture-max-seconds, counted apart, and the others are captured.
rm -rf DIR10
MMAP3_FAKE=files=$tmp/pairs3,slowread=2:20,rate=2000 "$fake" record -o side10.data \
	--capture DIR10 --capture-max-seconds 1 -- sleep 3 2>err10
rc=$?
check "a file read a byte at a time, 2,000 mappings a second: record exits 0 (got $rc)" test $rc -eq 0
check "... no record lost meanwhile" sh -c "! grep -q LOST err10"
check "... that file given up after --capture-max-seconds, said: $(grep two err10)" \
	grep -q "^mmap3: /usr/bin/two: reading at offset [0-9]*: not read within --capture-max-seconds; not captured" err10
check "... counted apart" grep -q "WARNING: 1 files not captured in DIR10: 1 not read within --capture-max-seconds" err10
check "... the other files captured" sh -c "cmp p1 $(link 1 | sed s/DIR/DIR10/)/elf && cmp p3 $(link 3 | sed s/DIR/DIR10/)/elf"
"$fake" record -o side11.data --capture DIR10 --capture-max-seconds 1x -- true 2>err11
check "--capture-max-seconds 1x: a usage error (status $?)" grep -q "not a number of seconds" err11

# Under sudo (root, SUDO_UID and SUDO_GID set) the capture directory is
# the invoking user's ~/.debug: theirs is accepted, and what mmap3 makes
# in it is made theirs (still 0600), so their own perf report reads it.
if [ "$EUID" = 0 ]; then
	mkdir home
	owned() { test -z "$(find "$1" \( ! -uid 65534 -o ! -gid 65534 \) -print)"; }
	SUDO_UID=65534 SUDO_GID=65534 MMAP3_FAKE=files=$tmp/pairs3 \
		"$fake" record -o side6.data --capture home/u/.debug -- true 2>err6
	rc=$?
	check "under sudo: record --capture exits 0 (got $rc)" test $rc -eq 0
	check "... the directory it made on the way is the user's" \
		test "$(stat -c %u:%g home/u)" = 65534:65534
	check "... DIR and all in it, files, directories and links, are the user's" \
		sh -c "test -n \"\$(find home/u/.debug -type l)\" && test -z \"\$(find home/u/.debug \\( ! -uid 65534 -o ! -gid 65534 \\) -print)\""
	check "... the files still 0600, and byte for byte" \
		sh -c "test \"\$(stat -c %a $(link 1 | sed s,DIR,home/u/.debug,)/elf)\" = 600 &&
		       cmp p2 $(link 2 | sed s,DIR,home/u/.debug,)/elf"
	check "... what was there before it is left as it was" test "$(stat -c %u home)" = 0
	mkdir -m 0700 DIR7
	chown 65534:65534 DIR7
	SUDO_UID=65534 SUDO_GID=65534 MMAP3_FAKE=files=$tmp/pairs3 \
		"$fake" record -o side7.data --capture DIR7 -- true 2>err7
	rc=$?
	check "under sudo, the user's own existing DIR is accepted (status $rc)" test $rc -eq 0
	check "... and what is made in it is theirs" owned DIR7
	for env in "" "SUDO_UID=65534x SUDO_GID=65534" "SUDO_UID=0 SUDO_GID=0"; do
		rm -f side8.data
		env $env MMAP3_FAKE=files=$tmp/pairs3 \
			"$fake" record -o side8.data --capture DIR7 -- true 2>err8
		rc=$?
		check "${env:-without sudo}: another user's DIR is refused (status $rc), $(head -n 1 err8)" \
			sh -c "test $rc -eq 1 && grep -q '^mmap3: DIR7: owned by uid 65534, expected the user running mmap3' err8"
	done
	# The module reads as that user (ABI 2.4): the session asks for it, with
	# their groups as login gives them; a module of 2.3 cannot, so nothing
	# is captured for them, and that is said.
	rm -rf DIR7/* DIR7/.build-id
	SUDO_UID=65534 SUDO_GID=65534 MMAP3_FAKE=files=$tmp/pairs3,user=$tmp/user \
		"$fake" record -o side7.data --capture DIR7 -- true 2>err7
	check "under sudo: captures read as the user who ran it ($(cat user))" \
		test "$(cat user)" = "uid 65534 gid 65534 groups $(command id -G nobody | tr ' ' ',')"
	rm -rf DIR7/* DIR7/.build-id
	SUDO_UID=65534 SUDO_GID=65534 MMAP3_FAKE=files=$tmp/pairs3,old=1 \
		"$fake" record -o side7.data --capture DIR7 -- true 2>err7
	rc=$?
	sed 's/^/# /' err7
	check "under sudo with a module of ABI 2.3: records written (status $rc), nothing captured" \
		sh -c "test $rc -eq 0 && test -s side7.data && test -z \"\$(find DIR7 -name elf)\""
	check "... said: $(grep -o 'cannot read files as uid [0-9]*' err7)" \
		grep -q "^mmap3: WARNING: the loaded module (ABI 2.3) cannot read files as uid 65534, who ran sudo" err7
	chmod 0770 DIR7
	SUDO_UID=65534 SUDO_GID=65534 MMAP3_FAKE=files=$tmp/pairs3 \
		"$fake" record -o side9.data --capture DIR7 -- true 2>err9
	rc=$?
	check "under sudo, the user's DIR writable by their group is refused (status $rc)" \
		sh -c "test $rc -eq 1 && grep -q '^mmap3: DIR7: mode 0770, expected writable by its owner alone' err9"
else
	tap_skip "under sudo: needs root"
fi

tap_done
