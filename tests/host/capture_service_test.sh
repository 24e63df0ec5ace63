#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmap3 capture DIR, the host's service (issue #44, 2), with the stand-in
# device: a storm of distinct binaries keeps DIR within --max-files and
# --max-bytes, each removal counted and said, nothing left behind; what
# was there before is read at the start and removed least recently mapped
# first (the links' times); a binary mapped again after its copy was
# removed is stored again by a new session (--renew); debuginfod serves
# what is kept, byte for byte.  Prints TAP.
#
#   tests/host/capture_service_test.sh MMAP3-FAKE
set -u

fake=$1
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/debuginfod.sh"
tap_tmpdir || exit 1

# bin N: an 800-byte ELF with build-id 0xNN..., at b/N; its id on stdout.
bin()
{
	local id
	id=$(printf '%02x%06xaabbccddeeff00112233445566778899' $(($1 % 256)) $1)
	[ -e tiny.c ] || printf 'void _start(void) { for (;;); }\n' >tiny.c
	mkdir -p b
	cc -Os -nostdlib -static -Wl,--build-id=0x$id -Wl,-z,noseparate-code -s -o b/$1 tiny.c
	echo $id
}
# pairs N...: files= of the stand-in, each b/N mapped as /usr/bin/bN.
pairs()
{
	local n
	for n in "$@"; do
		printf '%s\0%s\0' "$tmp/b/$n" /usr/bin/b$n
	done
}
# serve SECONDS OPTIONS...: mmap3 capture on store/ for SECONDS, then SIGTERM.
serve()
{
	local s=$1 pid
	shift
	"$fake" capture "$@" store 2>log &
	pid=$!
	sleep "$s"
	kill -TERM $pid
	wait $pid
	rc=$?
	sed 's/^/# /' log
}
# The build-ids stored, one per line: binaries, not the vdso (which
# each session stores first, as perf keeps it).
stored_ids()
{
	local l
	for l in store/.build-id/*/*; do
		[ -L "$l" ] || continue
		case $(readlink "$l") in *vdso*) continue ;; esac
		echo "${l:16:2}${l:19}"
	done | sort
}
link_of() { echo "store/.build-id/${1:0:2}/${1:2}"; }
id_of() { printf '%02x%06xaabbccddeeff00112233445566778899' $(($1 % 256)) $1; }

mkdir -m 700 store
for n in $(seq 1 40); do
	bin $n >/dev/null
done
pairs $(seq 1 40) >storm
MMAP3_FAKE=files=$tmp/storm serve 3 --max-files 10
check "a storm of 40 binaries, --max-files 10: exits 0 at SIGTERM (got $rc)" test $rc -eq 0
kept=$(find store/.build-id -type l | wc -l)
check "... 9 or 10 copies kept: removals go down to nine tenths ($kept)" \
	test "$kept" -ge 9 -a "$kept" -le 10
check "... removals said, with when their binaries were last mapped" \
	grep -q 'over its bound (4096 MB, 10 files): removed the [0-9]* least recently mapped' log
check "... and counted: 41 stored (the vdso too), $((41 - kept)) removed" \
	grep -q "$kept binaries kept (0 MB): 0 there at the start, 41 stored, $((41 - kept)) removed" log
check "... the most recently mapped kept: binaries 32 to 40, each byte for byte" bash -c '
	for n in $(seq 32 40); do
		id=$(printf "%02x%06xaabbccddeeff00112233445566778899" $n $n)
		cmp -s b/$n store/.build-id/${id:0:2}/${id:2}/elf || exit 1
	done'
check "... nothing left of what was removed: no empty directory, no dangling link" \
	sh -c 'test -z "$(find store -mindepth 1 -type d -empty)" && test -z "$(find -L store -type l)"'

# What is kept is what debuginfod serves.
if command -v debuginfod >/dev/null; then
	debuginfod_start "$tmp/store"
	got=$(DEBUGINFOD_URLS=$debuginfod_url debuginfod_fetch $(id_of 40))
	debuginfod_stop
	check "debuginfod -F on the store serves what it keeps, byte for byte" \
		sh -c "test -n '$got' && cmp b/40 '$got'"
else
	tap_skip "debuginfod not installed (tests/setup installs it)"
fi

# Restarted on that store: two of its copies mapped recently (their links'
# times), the rest long ago; three new binaries, --max-files 6 (the vdso,
# stored first, is one).
n0=$(find store/.build-id -type l | wc -l)
recent=$(stored_ids | head -n 2)
for l in store/.build-id/*/*; do
	touch -h -d 2020-01-01 "$l"
done
for id in $recent; do
	touch -h "$(link_of $id)"
done
for n in 41 42 43; do
	bin $n >/dev/null
done
pairs 41 42 43 >three
MMAP3_FAKE=files=$tmp/three serve 2 --max-files 6
check "restarted with $n0 copies there: reads them at the start" \
	grep -q "keeping binaries in store: $n0 there" log
want=$( (echo "$recent"; for n in 41 42 43; do id_of $n; echo; done) | sort)
check "... with --max-files 6, keeps the two mapped recently and the three new ones" \
	test "$(stored_ids)" = "$want"
check "... and the last mapping times on their links" \
	sh -c "test -n \"\$(find $(link_of $(id_of 41)) -newermt 2025-01-01)\""

# Binaries removed, then mapped again: stored again by a new session
# (one starts after copies were removed: what runs is offered again).
rm -rf store log
mkdir -m 700 store
bin 50 >/dev/null
bin 51 >/dev/null
pairs 50 51 >xy
MMAP3_FAKE=files=$tmp/xy,again=300 serve 5 --max-files 1 --renew 1
sessions=$(sed -n 's/.* \([0-9]*\) sessions$/\1/p' log)
stored=$(sed -n 's/.* there at the start, \([0-9]*\) stored.*/\1/p' log)
check "two binaries mapped again and again, --max-files 1: new sessions ($sessions)" \
	test "${sessions:-0}" -ge 2
check "... said" grep -q 'a new session: copies were removed, and what is mapped is offered again' log
check "... which stored again what was removed (${stored:-0} stored, 3 in one session)" \
	test "${stored:-0}" -gt 3
check "... one copy kept" test "$(find store/.build-id -type l | wc -l)" -eq 1

# A user's file claiming a build-id, stored; the service restarted; then
# a root-owned file claiming it: the user's copy is replaced, as within
# one session (capture_claims.h): the store remembers whose it was.
rm -rf store log
mkdir -m 700 store
id=0baabbccddeeff00112233445566778899aabbcc
printf 'int main(void) { return 1; }\n' >forged.c
cc -o forged forged.c -Wl,--build-id=0x$id
printf 'int main(void) { return 2; }\n' >real.c
cc -o real real.c -Wl,--build-id=0x$id
printf '%s\0%s\0' "$tmp/forged" /home/u/libforged.so >forged.pairs
printf '%s\0%s\0' "$tmp/real" /usr/lib/libreal.so >real.pairs
MMAP3_FAKE=files=$tmp/forged.pairs serve 1 --max-files 0
check "a user's file stored first: its copy kept read-only, marked a user's" \
	sh -c "cmp forged $(link_of $id)/elf && stat -c %a $(link_of $id)/elf | grep -qx 400"
MMAP3_FAKE=files=$tmp/real.pairs,status=1:0:64 serve 1 --max-files 0
check "after a restart, a root-owned file claiming its build-id replaces it" \
	sh -c "cmp real $(link_of $id)/elf && test \"\$(readlink $(link_of $id))\" = ../../usr/lib/libreal.so/$id"
check "... said" grep -q "kept this root-owned file's copy" log
tap_done
