#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A build-id is a file's own claim (issue #42, 4): when several files
# claim one, mmap3 record --capture keeps the first stored, unless it was
# not root-owned and a root-owned file (MMAP3_MMAP_ROOT_OWNED) claims the
# id later: that one's bytes replace it, the .build-id link follows, and
# it is said.  With the stand-in device (mmap3-fake).  Prints TAP.
#
#   tests/host/capture_claims_test.sh MMAP3-FAKE
set -u

fake=$1
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

ID=0aaabbccddeeff00112233445566778899aabbcc
# prog N: a program of its own bytes, all claiming build-id $ID.
prog()
{
	printf 'int main(void) { return %d; }\n' "$1" >p$1.c
	cc -o p$1 p$1.c -Wl,--build-id=0x$ID
}
for i in 1 2 3; do
	prog $i
done
ROOT_OWNED=64		# MMAP3_MMAP_ROOT_OWNED
link=.build-id/${ID:0:2}/${ID:2}

# run NAME STATUS PAIRS...: record --capture into NAME/ with the pairs.
run()
{
	local name=$1 status=$2
	shift 2
	printf '%s\0' "$@" >"$name.pairs"
	MMAP3_FAKE="files=$tmp/$name.pairs${status:+,status=$status}" \
		"$fake" record -o "$name.data" --capture "$name" -- true 2>"$name.err"
	echo $? >"$name.rc"
	sed "s/^/# $name: /" "$name.err"
}

# A user's file first, then root's: root's replaces it.
run user_first 2:0:$ROOT_OWNED "$tmp/p1" /home/u/libforged.so "$tmp/p2" /usr/lib/libreal.so \
	"$tmp/p3" /tmp/another.so
check "record exits 0" test "$(cat user_first.rc)" = 0
check "the build-id's copy is the root-owned file's" cmp p2 user_first/$link/elf
check "its link names the root-owned file's path" \
	test "$(readlink user_first/$link)" = "../../usr/lib/libreal.so/$ID"
check "the user's copy is gone" test ! -e "user_first/home/u/libforged.so/$ID/elf"
check "a later user's file claiming it was not stored" test ! -e "user_first/tmp/another.so/$ID"
check "the replacement is said, naming both files" \
	grep -q "/usr/lib/libreal.so: kept this root-owned file's copy.*from /home/u/libforged.so" \
	user_first.err
check "the summary counts it" grep -q "1 files stored from files root did not own alone.*1 of them replaced" user_first.err
check "and the claim not stored" grep -q "1 more files claimed build-ids already stored" user_first.err

# Root's first: a user's later claim changes nothing.
run root_first 1:0:$ROOT_OWNED "$tmp/p2" /usr/lib/libreal.so "$tmp/p1" /home/u/libforged.so
check "root's file first: its copy kept" cmp p2 root_first/$link/elf
check "root's file first: the user's not stored" test ! -e "root_first/home/u/libforged.so"
check "root's file first: nothing replaced" sh -c '! grep -q "kept this root-owned" root_first.err'

# Two files at one path (a user's, then root's): replaced in place.
run same_path 2:0:$ROOT_OWNED "$tmp/p1" /usr/lib/libsame.so "$tmp/p2" /usr/lib/libsame.so
check "at one path: root's bytes replace the user's" cmp p2 same_path/$link/elf
check "at one path: the link still names it" \
	test "$(readlink same_path/$link)" = "../../usr/lib/libsame.so/$ID"

# Root's file at that path is given up while it is copied (a byte a read,
# past --capture-max-seconds): the user's copy stays until a replacement
# is whole.
printf '%s\0' "$tmp/p1" /usr/lib/libsame.so "$tmp/p2" /usr/lib/libsame.so >failed.pairs
MMAP3_FAKE="files=$tmp/failed.pairs,status=2:0:$ROOT_OWNED,slowread=2:20" \
	"$fake" record -o failed.data --capture failed --capture-max-seconds 1 -- true 2>failed.err
sed 's/^/# failed: /' failed.err
check "at one path, root's copy failing: the user's copy kept, whole" cmp p1 failed/$link/elf

# Two users' files: the first stays.
run users "" "$tmp/p1" /home/u/a.so "$tmp/p3" /home/v/b.so
check "two users' files: the first kept" cmp p1 users/$link/elf

# A module before 2.5 tells no owner: the first stays, as before.
printf '%s\0' "$tmp/p1" /home/u/libforged.so "$tmp/p2" /usr/lib/libreal.so >old.pairs
MMAP3_FAKE="files=$tmp/old.pairs,status=2:0:$ROOT_OWNED,old=1" \
	"$fake" record -o old.data --capture old -- true 2>old.err
check "a module before 2.5: the first copy kept" cmp p1 old/$link/elf
tap_done
