#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmap3 inject, the pipe stage (issue #23, 1), with the stand-in device
# and the host's perf record: perf's stream goes through whole (every
# record, in an order perf reads without complaint), mmap3's records of
# processes perf did not record stay out unless asked for, -o writes
# perf's file format as merge does (0600, the old one kept as .old, never
# an input),
# and what is not perf's pipe-mode data, a terminal, or a reader that
# goes away are said, not taken.  Judged by the host's perf and sid's
# (tap_perfs).  The feed thread beside the main one runs under TSan too.
# Prints TAP.
#
#   tests/host/inject_test.sh MMAP3-FAKE MMAP3-FAKE-TSAN
set -u

fake=$1
tsan=$2
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

tap_need_perf_record
export HOME=$tmp/home PERF_CONFIG=/dev/null MMAP3_FAKE=rate=200

# A workload that maps and runs for a while, so perf writes rounds.
printf '#include <dlfcn.h>\n#include <unistd.h>\nint main(void) { int i; for (i = 0; i < 40; i++) { void *h = dlopen("libm.so.6", RTLD_NOW); if (h) dlclose(h); usleep(10000); } return 0; }\n' >w.c
cc -O1 -o w w.c -ldl

for perf in $(tap_perfs); do
	by=$(tap_perf_label $perf)
	$perf record -q -e cpu-clock -o - -- ./w 2>/dev/null | tee alone.data |
		"$fake" inject 2>err >injected.data
	rc=$?
	sed 's/^/# /' err
	check "$by record -o - | mmap3 inject: status 0 (got $rc)" test $rc -eq 0
	check "... binaries kept where perf looks by default, and said so" \
		grep -q "capturing binaries into $tmp/home/.debug, where perf looks" err
	$perf script -i alone.data --show-mmap-events -F comm,pid,tid,time,ip,event 2>alone.err >alone.txt
	$perf script -i injected.data --show-mmap-events -F comm,pid,tid,time,ip,event 2>inj.err >inj.txt
	check "... $by reads what comes out" sh -c "test -s inj.txt && ! grep -qi 'error\|failed' inj.err"
	check "... every one of perf's records passes through ($(wc -l <alone.txt) lines)" \
		sh -c "grep -v ' 4242/4242: ' inj.txt | diff - alone.txt"
	check "... the stand-in's process (4242), which perf did not record, stays out" \
		sh -c "! grep -q ' 4242/' inj.txt"
	check "... and inject says it left its mappings out" \
		grep -q "left out [0-9]* mappings of processes perf did not record" err
	ooo=$($perf report -i injected.data --stdio 2>&1 | sed -n 's/^\([0-9]*\) out of order events.*/\1/p')
	check "... nothing out of time order (perf counts ${ooo:-0})" test "${ooo:-0}" -eq 0

	$perf record -q -e cpu-clock -o - -- ./w 2>/dev/null |
		"$fake" inject --all-processes --no-capture -o all.data 2>err
	$perf script -i all.data --show-mmap-events -F pid,time,event 2>/dev/null >all.txt
	n=$(grep -c ' 4242/4242: ' all.txt)
	check "... --all-processes adds them ($n)" \
		test "$n" -gt 0
	ooo=$($perf report -i all.data --stdio 2>&1 | sed -n 's/^\([0-9]*\) out of order events.*/\1/p')
	check "... and perf finds none out of order (${ooo:-0})" test "${ooo:-0}" -eq 0
done

# -o: as merge writes files, in perf's file format.
echo previous >out.data
"$fake" inject --no-capture -i alone.data -o out.data 2>err
check "-o FILE: created 0600" sh -c "stat -c %a out.data | grep -qx 600"
check "... in perf's file format, as perf inject -o writes (a 104-byte header)" \
	sh -c "test \"\$(od -An -tu8 -j8 -N8 out.data | tr -d ' ')\" = 104"
for perf in $(tap_perfs); do
	$perf record -q -e cpu-clock -o - -- ./w 2>/dev/null >own.data
	"$fake" inject --no-capture -i own.data -o own-out.data 2>/dev/null
	$perf script -i own.data --show-mmap-events -F pid,time,ip,event 2>/dev/null >a.txt
	$perf script -i own-out.data --show-mmap-events -F pid,time,ip,event 2>/dev/null >o.txt
	check "... $(tap_perf_label $perf)'s stream as a file it reads: every record" \
		sh -c "test -s o.txt && diff a.txt o.txt"
done
check "... perf's header records in its header: the features (perf report --header)" \
	sh -c "perf report -i out.data --header-only 2>/dev/null | grep -q '^# hostname'"
check "... the file that was there kept as FILE.old" grep -qx previous out.data.old
"$fake" inject --no-capture -i alone.data -o alone.data 2>err
check "-o the input: refused (status $?)" grep -q "one file cannot be both" err
ln -s out.data link.data
"$fake" inject --no-capture -i alone.data -o link.data 2>err
check "-o a symbolic link: refused" sh -c "test -L link.data && grep -q 'symbolic link' err"

# What is not perf's pipe-mode data is said, with the offset.
perf record -q -e cpu-clock -o file.data -- true 2>/dev/null
"$fake" inject --no-capture -i file.data >x.data 2>err
check "a file-mode perf.data: refused, saying perf record -o - makes the stream" \
	grep -q "offset 8: a file-mode header .* perf record -o - writes it" err
printf 'not perf data at all' | "$fake" inject --no-capture >x.data 2>err
check "not perf's data: refused by its magic" grep -q "not perf's data: magic" err
python3 -c 'import pty, subprocess, sys; pty.spawn(sys.argv[1:])' "$fake" inject --no-capture \
	-i alone.data >tty.txt 2>&1
check "standard output a terminal: refused, saying where to pipe it" \
	grep -q "standard output is a terminal" tty.txt

# The session fails mid-stream (a malformed record from the device):
# said, status 1, and perf's data still goes through whole, into -o too.
perf record -q -e cpu-clock -o - -- ./w 2>/dev/null | tee alone2.data |
	MMAP3_FAKE=rate=200,bad=short "$fake" inject --no-capture -o bad.data 2>err
rc=${PIPESTATUS[2]}
sed 's/^/# /' err | head -n 3
check "a malformed record from the device: status 1 (got $rc), said" \
	sh -c "test $rc -eq 1 && grep -q 'the session failed' err"
perf script -i alone2.data --show-mmap-events -F pid,time,ip,event 2>/dev/null >alone2.txt
perf script -i bad.data --show-mmap-events -F pid,time,ip,event 2>/dev/null >bad.txt
check "... perf's data kept whole in -o FILE" sh -c "test -s bad.txt && diff bad.txt alone2.txt"

# The reader goes away: said, not a death by SIGPIPE.
{ head -c 2000 alone.data; sleep 1; tail -c +2001 alone.data; } |
	"$fake" inject --no-capture 2>err | true
check "the pipe's reader gone: said" grep -q "the reader closed the pipe" err

# Captures follow perf's processes: the workload's binary (the stand-in
# names it as the workload's pid's mapping) is kept, another process's
# not; the module is told to forget that one, so a mapping of it by one
# of perf's processes would be offered again.
printf '#include <stdio.h>\nint main(void) { return puts("other") < 0; }\n' >o.c
cc -O1 -o other o.c
printf '%s\0%s\0' "$tmp/w" "/usr/bin/workload" "$tmp/other" "/usr/bin/other" >pairs
bid_of() { file -L "$1" | sed -n 's/.*BuildID\[sha1\]=\([0-9a-f]*\).*/\1/p'; }
wid=$(bid_of w) oid=$(bid_of other)
for all in "" --all-processes; do
	rm -rf pid caps stats
	perf record -q -e cpu-clock -o - -- sh -c 'echo $$ >pid; exec ./w' 2>/dev/null |
		MMAP3_FAKE=rate=200,files=$tmp/pairs,pid=$tmp/pid,stats=$tmp/stats \
		"$fake" inject $all -c caps -o caps.data 2>err
	sed 's/^/# /' err
	what=${all:-"(perf's processes)"}
	check "inject -c DIR $what: the workload's binary kept" \
		cmp -s w "caps/.build-id/${wid:0:2}/${wid:2}/elf"
	if [ -z "$all" ]; then
		check "... another process's not" test ! -e "caps/.build-id/${oid:0:2}/${oid:2}"
		check "... its build-id forgotten by the module, offered again at the next mapping" \
			grep -qx "forgotten 1" stats
		check "... and said" grep -q "and 1 of their files not captured" err
	else
		check "... another process's too" cmp -s other "caps/.build-id/${oid:0:2}/${oid:2}/elf"
		check "... none forgotten" grep -qx "forgotten 0" stats
	fi
done

# The feed thread and the main one, under ThreadSanitizer.
perf record -q -e cpu-clock -o - -- ./w 2>/dev/null |
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 "$tsan" inject --no-capture >/dev/null 2>tsan.err
rc=${PIPESTATUS[1]}
grep -m 5 'WARNING: ThreadSanitizer' tsan.err | sed 's/^/# /'
check "under TSan: no data race (status $rc)" test "$rc" -eq 0
rm -rf pid caps
perf record -q -e cpu-clock -o - -- sh -c 'echo $$ >pid; exec ./w' 2>/dev/null |
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 MMAP3_FAKE=rate=200,files=$tmp/pairs,pid=$tmp/pid \
	"$tsan" inject -c caps >/dev/null 2>tsan.err
rc=${PIPESTATUS[1]}
grep -m 5 'WARNING: ThreadSanitizer' tsan.err | sed 's/^/# /'
check "... nor with captures taken by the main thread (status $rc)" test "$rc" -eq 0

tap_done
