#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# No byte of a name another user chose reaches the terminal raw (issue
# #40, 3): mmap3 runs as root and names, in its messages, files that any
# user mapped (a memfd's name is free text).  Every message goes through
# userspace/msg.c, which adds the prefix and escapes: checked in the
# source, and by running record and inject (with the stand-in device,
# mmap3-fake) through every capture message that names a file, each
# file named with escape sequences, bidirectional overrides and bytes
# that are no UTF-8.  Their standard error must hold no control byte
# but the lines' ends.  Prints TAP.
#
#   tests/host/messages_test.sh TOP MMAP3-FAKE
set -u

top=$1
fake=$2
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

# In the source: the prefix written once, and standard error written by
# msg.c alone (usage texts aside, which name nothing of others').
n=$(grep -cE '"mmap3( [a-z]+)?: ' "$top"/userspace/*.c "$top"/userspace/perf/*.c |
	awk -F: '{ n += $2 } END { print n }')
check "the prefix \"mmap3: (or \"mmap3 CMD: ) is written in one place in userspace/ ($n)" \
	test "$n" -eq 1
check "... msg.c's" grep -q '^#define MSG_PREFIX	"mmap3: "' "$top/userspace/msg.c"
raw=$(grep -n 'stderr\|STDERR_FILENO' "$top"/userspace/*.c "$top"/userspace/perf/*.c |
	grep -v '^[^:]*/msg\.c:' | grep -v 'usage(stderr)\|"usage: \|dup2(' |
	grep -v '^[^:]*:[0-9]*:\s*/\?\*')
check "nothing else writes to standard error${raw:+: $raw}" test -z "$raw"

# has_control FILE: a byte below 0x20 but newline, DEL, or a C1 control
# or a bidirectional override in UTF-8.
has_control()
{
	LC_ALL=C grep -qP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]' "$1"
}
printf 'a\033[2Jb\n' >probe.txt
check "the check sees an escape sequence" has_control probe.txt
printf 'a\xe2\x80\xaeb\n' >probe.txt
check "... and a bidirectional override" has_control probe.txt

# prog N [SIZE] [ID]: a program with build-id 0N..., or ID; zeros to SIZE.
prog()
{
	printf 'int main(void) { return %d; }\n' "$1" >p$1.c
	cc -o p$1 p$1.c -Wl,--build-id=0x${3:-0$1aabbccddeeff00112233445566778899aabbcc}
	[ -z "${2:-}" ] || truncate -s "$2" p$1
}
# The names: a terminal's clear-screen and title, a right-to-left override,
# a byte that is no UTF-8, DEL.
evil=$(printf '/tmp/\033[2J\033]0;owned\007\342\200\256gnp.\377\177')
prog 1 1T
prog 2 3M
prog 3 3M
prog 4
prog 5
prog 6
prog 7 "" 07
printf '%s\0%s\0' "$tmp/p1" "$evil-huge" "$tmp/p2" "$evil-a" "$tmp/p3" "$evil-total" \
	"$tmp/p4" "$evil-denied" "$tmp/p5" "$evil-timeout" "$tmp/p6" "$evil-slow" \
	"$tmp/p7" "$evil-short" >pairs
: >all.err
# run WHAT FAKE-EXTRA ARGS...: mmap3 record --capture of the pairs; its
# standard error kept in all.err.
run()
{
	local what=$1 extra=$2
	shift 2
	rm -rf DIR
	MMAP3_FAKE=files=$tmp/pairs$extra "$fake" record -o side.data --capture DIR \
		--capture-max-seconds 1 "$@" -- true 2>err
	cat err >>all.err
	check "$what: a message names the file, escaped" grep -q '\\x1b\[2J\\x1b\]0;owned\\x07\\u202egnp\.\\xff\\x7f' err
	check "... and the terminal gets no control byte" bash -c "$(declare -f has_control); ! has_control err"
}
# p1 past --capture-max-file; p3 past --capture-max-total; p4 refused,
# p5 timed out, p6 answered a byte at a time (slowread), p7's id too short.
run "record --capture: larger than --capture-max-file, past --capture-max-total, not readable" \
	,readerr=4:13 --capture-max-total 4M
run "... its filesystem did not answer" ,readerr=5:110
run "... a byte a second" ,slowread=6:1000
run "... changed after it was mapped" ,changed=1
grep -q 'changed after it was mapped' all.err &&
	grep -q 'larger than --capture-max-file' all.err && grep -q 'capture-max-total' all.err &&
	grep -q 'not read within --capture-max-seconds' all.err && grep -q 'too short for perf' all.err
check "every capture message came (max-file, max-total, changed, too slow, short id)" test $? -eq 0

# The same through inject, which keeps binaries from its own session.
if perf record -q -e cpu-clock -o - -- true >stream.data 2>/dev/null; then
	rm -rf DIR
	MMAP3_FAKE=files=$tmp/pairs,changed=1 "$fake" inject --all-processes --capture DIR \
		-i stream.data -o out.data 2>err
	check "inject --capture: a message names the file, escaped" grep -q '\\x1b\[2J' err
	check "... and the terminal gets no control byte" bash -c "$(declare -f has_control); ! has_control err"
else
	tap_skip "perf record does not work on this machine"
fi

# Names that come from files: perf.data's own, a device's.
ln -s /dev/null "$(printf 'x\033[31mred')"
"$fake" dump "$(printf 'x\033[31mred')" >/dev/null 2>err
check "dump of a file whose name holds an escape: named, escaped" \
	bash -c "$(declare -f has_control); grep -q 'x\\\\x1b\\[31mred' err && ! has_control err"
MMAP3_DEVICE=$(printf '/nonexistent/\033[5m') "$top/userspace/mmap3" stat 2>err
check "a device named with an escape: named, escaped" \
	bash -c "$(declare -f has_control); grep -q '\\\\x1b\\[5m' err && ! has_control err"

tap_done
