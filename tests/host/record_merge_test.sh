#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmap3 record --merge, one command for the common case (issue #23, 2),
# with the stand-in device and the host's perf record: perf's own output
# comes out merged, in place, what perf kept as .old stays, the side file
# is kept beside it, binaries are captured where that perf keeps them
# (its --buildid-dir, buildid.dir, else ~/.debug; none with -N or
# --no-capture), the workload's own -o is never taken for perf's, and
# what cannot be merged is refused before anything runs, or said after
# with perf's profile left as perf wrote it.  Prints TAP.
#
#   tests/host/record_merge_test.sh MMAP3-FAKE
set -u

fake=$1
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

tap_need_perf_record
printf 'int main(void) { return 0; }\n' >p.c
cc -o p p.c -Wl,--build-id=0x01aabbccddeeff00112233445566778899aabbcc
printf '%s\0%s\0' "$tmp/p" "/usr/bin/p" >pairs
export MMAP3_FAKE=files=$tmp/pairs HOME=$tmp/home PERF_CONFIG=/dev/null
cached() { test -f "$1/.build-id/01/aabbccddeeff00112233445566778899aabbcc/elf"; }

echo previous >perf.data
"$fake" record --merge -- perf record -q -e cpu-clock -- ./p -o notperf.data >out 2>err
rc=$?
sed 's/^/# /' err
check "record --merge -- perf record: status 0 (got $rc)" test $rc -eq 0
check "perf's perf.data is merged in place, and perf reads it" \
	sh -c "grep -q '^mmap3: wrote perf.data: ' err && perf report -i perf.data --stdio >/dev/null 2>&1"
check "what perf kept as perf.data.old is left as it was" grep -qx previous perf.data.old
check "the side file is kept as perf.data.mmap3" sh -c "perf script -i perf.data.mmap3 --show-mmap-events 2>/dev/null | grep -q /usr/bin/p"
check "the workload's -o was not taken for perf's" test ! -e notperf.data
check "binaries are captured where perf looks by default: \$HOME/.debug" cached home/.debug
check "... said so" grep -q "capturing binaries into $tmp/home/.debug, where perf looks" err
check "no temporary file is left" sh -c "! ls -A | grep -q mmap3-"

# The vdso, kept as perf keeps it ([vdso]/ID/vdso), by mmap3 alone (no
# perf beside it to put it there): perf given the capture directory as
# its cache still names the vdso's functions.
"$fake" record -q -o vdso.data --capture "$tmp/vdsocap" -- true
id=$(perf buildid-list -i perf.data 2>/dev/null | sed -n 's/ \[vdso\]$//p' | head -n 1)
check "the vdso is captured as perf's cache has it: [vdso]/$id/vdso and its link" \
	sh -c "test -n '$id' && test -f 'vdsocap/[vdso]/$id/vdso' &&
	       test \"\$(readlink vdsocap/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-))\" = '../../[vdso]/$id'"
printf '#include <time.h>\nint main(void) { struct timespec t; long i;\n for (i = 0; i < 20000000; i++) clock_gettime(CLOCK_MONOTONIC, &t); return 0; }\n' >cg.c
cc -O2 -o cg cg.c
perf record -q -N -e cpu-clock -o cg.data -- ./cg >/dev/null 2>&1
mkdir -p empty
perf --buildid-dir "$tmp/empty" report -i cg.data --stdio --sort dso,sym 2>/dev/null | grep '\[vdso\]' >alone.txt
perf --buildid-dir "$tmp/vdsocap" report -i cg.data --stdio --sort dso,sym 2>/dev/null | grep '\[vdso\]' >with.txt
sed 's/^/# an empty cache: /' alone.txt | head -n 2
sed 's/^/# the capture: /' with.txt | head -n 2
check "perf --buildid-dir of the capture names the vdso's functions (__vdso_clock_gettime)" \
	grep -q '__vdso_clock_gettime' with.txt

# perf's -o, --buildid-dir and buildid.dir; -N and --no-capture.
"$fake" record --merge -- perf --buildid-dir "$tmp/bid" record -q -e cpu-clock -o x.data -- ./p 2>err
check "perf record -o x.data: x.data merged, side file x.data.mmap3 (status $?)" \
	sh -c "grep -q '^mmap3: wrote x.data: ' err && test -s x.data.mmap3"
check "perf --buildid-dir DIR: captured in DIR" cached bid
printf '[buildid]\n\tdir = %s/conf\n' "$tmp" >perfconfig
PERF_CONFIG=$tmp/perfconfig "$fake" record --merge -- perf record -q -e cpu-clock -o y.data -- ./p 2>err
check "perf's buildid.dir setting: captured there (status $?)" cached conf
rm -rf home
"$fake" record --merge -- perf record -q -N -e cpu-clock -o z.data -- ./p 2>err
check "perf record -N (no build-id cache): merged, nothing captured (status $?)" \
	sh -c "grep -q '^mmap3: wrote z.data: ' err && test ! -e home && ! grep -q capturing err"
"$fake" record --merge --no-capture -- perf record -q -e cpu-clock -o z.data -- ./p 2>err
check "--no-capture: merged, nothing captured (status $?)" \
	sh -c "grep -q '^mmap3: wrote z.data: ' err && test ! -e home"
check "... and the z.data perf replaced is kept as z.data.old by perf" test -s z.data.old

# Refused before anything runs.
for c in "-- true:expected '-- perf record ...'" \
	 ":expected '-- perf record ...'" \
	 "-- perf record -q -o - -- ./p:perf record writes standard output (-o -" \
	 "-- perf record -q --switch-output=signal -- ./p:--switch-output writes a file per chunk" \
	 "--no-capture --capture c -- perf record -q -- ./p:--capture and --no-capture"; do
	args=${c%%:*} said=${c#*:}
	rm -f perf.data perf.data.mmap3
	"$fake" record --merge $args >/dev/null 2>err
	rc=$?
	refused() { test $rc -eq 2 && grep -qF -- "$said" err && test ! -e perf.data && test ! -e perf.data.mmap3; }
	check "record --merge $args: refused, status 2 (got $rc): $(head -n 1 err)" refused
done

rm -f perf.data perf.data.mmap3
"$fake" record --merge -- perf record -q -e cpu-clock -- ./p 2>err | cat >/dev/null
rc=${PIPESTATUS[0]}
check "perf record with standard output a pipe (it writes there): refused, status 2 (got $rc)" \
	sh -c "test $rc -eq 2 && grep -q 'no -o and standard output a pipe' err && test ! -e perf.data"

# What merge could not read, refused before anything runs; perf's own
# abbreviations of its options taken as perf takes them.
for c in "-z:perf record -z writes compressed data" \
	 "--threads:perf record --threads writes a directory" \
	 "--comp=1:perf record -z writes compressed data" \
	 "-o /dev/stdout:perf record writes /dev/stdout, a name of /dev" \
	 "-o /proc/self/fd/1:perf record writes /proc/self/fd/1, a name of /proc"; do
	args=${c%%:*} said=${c#*:}
	rm -f perf.data perf.data.mmap3
	"$fake" record --merge -- perf record -q -e cpu-clock $args -- ./p >/dev/null 2>err
	rc=$?
	check "record --merge -- perf record $args: refused, status 2 (got $rc): $(head -n 1 err)" \
		sh -c "test $rc -eq 2 && grep -qF -- '$said' err && test ! -e perf.data &&
		       test ! -e perf.data.mmap3 && test ! -e /dev/stdout.mmap3"
done
"$fake" record --merge -- perf record -q -e cpu-clock --out pre.data -- ./p 2>err
check "perf record --out pre.data (a unique prefix of --output): pre.data merged (status $?)" \
	sh -c "grep -q '^mmap3: wrote pre.data: ' err && test -s pre.data.mmap3 && test ! -e perf.data"

# Whose mappings are recorded and captured: those perf records.  The
# filter the session asked for, as the stand-in device saw it (flags:
# 0x2 capture, 0x4 children too, 0x8 derived build-ids: captured).
filtered()
{
	rm -f filter
	MMAP3_FAKE=files=$tmp/pairs,filter=$tmp/filter "$fake" record --merge "$@" >/dev/null 2>err
	rc=$?
	filter=$(cat filter 2>/dev/null)
}
filtered -- perf record -q -e cpu-clock -o f.data -- ./p
check "perf record -- CMD: perf and what it starts, children too ($filter, status $rc)" \
	sh -c "echo '$filter' | grep -qx 'flags e pids [0-9]*'"
sleep 2 &
bg=$!
filtered -- perf record -q -e cpu-clock -o f.data -p $bg
check "perf record -p PID: that process, children too ($filter)" test "$filter" = "flags e pids $bg"
sleep 2 &
bg=$!
filtered -- perf record -q -e cpu-clock -o f.data -i -t $bg
check "perf record -i -t TID: its process alone ($filter)" test "$filter" = "flags a pids $bg"
filtered -- perf record -q -e cpu-clock -o f.data -a -- true
check "perf record -a -- CMD: every process ($filter)" test "$filter" = "flags a pids "
sleep 2 &
bg=$!
filtered --pid $$ -- perf record -q -e cpu-clock -o f.data -p $bg
check "record --pid PID: that one, whatever perf records ($filter)" test "$filter" = "flags e pids $$"
wait

# The signal tail: perf has exited, a file is still being copied (a byte
# every 200 ms).  A stop signal gives the copy up and merges; two (an INT
# and a TERM: two of one kind may arrive as one) leave perf's file as
# perf wrote it.  Each way out says what became of it.
tail_run()
{
	rm -rf t.data t.data.mmap3 tcap
	MMAP3_FAKE=files=$tmp/pairs,slowread=1:200 "$fake" record --merge --capture tcap \
		-- perf record -q -e cpu-clock -o t.data -- ./p >/dev/null 2>err &
	pid=$!
	# perf started (mmap3's child), then gone.
	for i in $(seq 100); do
		pgrep -P $pid >/dev/null && break
		sleep 0.1
	done
	for i in $(seq 100); do
		pgrep -P $pid >/dev/null || break
		sleep 0.1
	done
	sleep 0.5
	for sig; do
		kill -$sig $pid
	done
	wait $pid
	rc=$?
	sed 's/^/# /' err
}
tail_run INT
check "SIGINT while a capture is copied after perf exited: status 0 (got $rc)" test $rc -eq 0
check "... the capture given up, said and counted" \
	sh -c "grep -q 'stopped capturing (a signal)' err &&
	       grep -q '1 files not captured in tcap: 1 given up at a stop signal' err"
check "... perf's file merged, perf reads it" \
	sh -c "grep -q '^mmap3: wrote t.data: ' err && perf report -i t.data --stdio >/dev/null 2>&1"
tail_run INT TERM
check "SIGINT and SIGTERM then: status 1 (got $rc)" test $rc -eq 1
check "... perf's file left as perf wrote it, said" \
	sh -c "grep -q '^mmap3: WARNING: t.data left as perf wrote it (a second signal); mmap3.s records are in t.data.mmap3' err &&
	       ! grep -q '^mmap3: wrote t.data: ' err && perf report -i t.data --stdio >/dev/null 2>&1"

"$fake" record --merge -q -- perf record -q -e cpu-clock -o q.data -- ./p >/dev/null 2>err
check "record --merge -q: merged, nothing said (status $?)" \
	sh -c "test ! -s err && test -s q.data.mmap3 && perf report -i q.data --stdio >/dev/null 2>&1"

# perf fails before writing: its status, perf.data as it was, said so.
echo previous >perf.data
"$fake" record --merge -- perf record --no-such-option -- ./p >/dev/null 2>err
rc=$?
check "perf record failing before it writes: its status (got $rc)" test $rc -eq 129
check "... perf.data left as it was, said so" \
	sh -c "grep -qx previous perf.data && grep -q '^mmap3: perf.data: not written by perf record: nothing merged; mmap3.s records are in perf.data.mmap3' err"
# The workload fails: merged all the same, its status passed on.
"$fake" record --merge -- perf record -q -e cpu-clock -- sh -c 'exit 3' >/dev/null 2>err
rc=$?
check "a workload exiting 3: status 3 (got $rc), merged all the same" \
	sh -c "test $rc -eq 3 && grep -q '^mmap3: wrote perf.data: ' err"
tap_done
