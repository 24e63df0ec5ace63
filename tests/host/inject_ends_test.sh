#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every way perf's stream can end, and mmap3 inject keeps what perf
# inject keeps (issue #40, 1 and 2), with the stand-in device: SIGINT and
# SIGHUP end the input as its end does, after what its writer still
# sends; SIGTERM stops at once (status 143); a stream cut inside a record
# keeps what came before, with one warning; the real Ctrl-C shape, perf
# and inject signalled as one process group, leaves a file perf reads
# with as many samples as perf inject -o keeps; a reader gone, a record
# before perf's attrs, a payload past any AUX buffer, another machine's
# stream (passed on unchanged), a file still being written (followed
# until its writer closes it), an input that is a link to a device
# (refused before it is opened), and a stream of 80 MB of build-ids
# (held on disk, not in memory).  Prints TAP.
#
#   tests/host/inject_ends_test.sh MMAP3-FAKE
set -u

fake=$1
craft=$(cd "$(dirname "$0")" && pwd)/craft.py
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1
export HOME=$tmp/home PERF_CONFIG=/dev/null MMAP3_FAKE=rate=100

for n in stream stream-elsewhere stream-before-attr stream-aux stream-ids-small stream-ids-big; do
	python3 "$craft" $n $n.data
done
# samples FILE: the samples a perf.data holds, as mmap3 dump counts them.
samples() { "$fake" dump "$1" 2>/dev/null | grep -c ' SAMPLE ' ; }
all=$(samples stream.data)

# feed FILE PAUSE: the stream's first half, then "half" is written and
# after PAUSE seconds the rest, then the pipe is closed (or, PAUSE "hold",
# held open until "stop" is touched: a writer that does not stop).
feed()
{
	python3 - "$1" "$2" <<'PY'
import os, sys, time
d = open(sys.argv[1], 'rb').read()
out = sys.stdout.buffer
out.write(d[:len(d) // 2]); out.flush()
open('half', 'w').write('x')
if sys.argv[2] == 'hold':
    for i in range(600):
        if os.path.exists('stop'):
            break
        time.sleep(0.1)
else:
    time.sleep(float(sys.argv[2]))
    out.write(d[len(d) // 2:]); out.flush()
PY
}
# ended PID: PID's status once it has exited, the feeder then stopped
# (bash waits for a pipeline's every process).
ended()
{
	local i
	for i in $(seq 300); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	touch stop
	wait "$1"
}
# SIGINT while the writer still writes: it is all kept.
rm -f half
feed stream.data 1 | "$fake" inject --no-capture -o int.data 2>err &
pid=$!
tap_wait_for half
kill -INT $pid
wait $pid
rc=$?
check "SIGINT mid-stream, the writer going on for a second: status 0 (got $rc)" test $rc -eq 0
check "... every sample kept, those written after the signal too ($(samples int.data) of $all)" \
	test "$(samples int.data)" = "$all"

# signalled SIG... : inject of a stream whose writer holds the pipe open
# after its first half, sent SIG one after another: its status in rc, the
# samples it wrote in n.
signalled()
{
	local sig
	rm -f half stop out.data
	feed stream.data hold | "$fake" inject --no-capture -o out.data 2>err &
	pid=$!
	tap_wait_for half
	for sig in "$@"; do
		kill -"$sig" $pid
		sleep 0.3
	done
	ended $pid
	rc=$?
	n=$(samples out.data)
}

# SIGINT and a writer that does not stop: ended after its silence.
signalled INT
check "SIGINT, the writer holding the pipe open: status 0 (got $rc), the file written ($n samples)" \
	sh -c "test $rc -eq 0 && test $n -gt 0 && test $n -lt $all"
# SIGTERM: at once, the file whole up to there, status 128 + 15.
signalled TERM
check "SIGTERM: status 143 (got $rc), the file written ($n samples)" \
	sh -c "test $rc -eq 143 && test $n -gt 0"
# Two SIGINTs: at once too, status 0.
signalled INT INT
check "a second SIGINT ends it at once: status 0 (got $rc), the file written ($n samples)" \
	sh -c "test $rc -eq 0 && test $n -gt 0"

# Cut inside a record (perf killed): kept up to there, one warning.
size=$(stat -c %s stream.data)
head -c $((size / 2 + 5)) stream.data >cut.data
"$fake" inject --no-capture -i cut.data -o cut-out.data 2>err
rc=$?
sed 's/^/# /' err
check "a stream cut inside a record: status 0 (got $rc)" test $rc -eq 0
check "... one warning naming the offset" \
	sh -c "test \$(grep -c 'WARNING: cut.data' err) -eq 1 && grep -q 'WARNING: cut.data: offset [0-9]*: the stream ends inside.*kept the records before it' err"
check "... the records before it kept ($(samples cut-out.data) samples)" \
	sh -c "test $(samples cut-out.data) -gt 0"
for perf in $(tap_perfs); do
	check "... read by $(tap_perf_label $perf)" sh -c "$perf script -i cut-out.data | grep -q cpu-clock"
done

# Before perf's attrs, and a payload past any AUX buffer: refused.
"$fake" inject --no-capture -i stream-before-attr.data -o x.data 2>err
rc=$?
check "a record before any ATTR (24 bytes): status 1 (got $rc), the offset said, no file" \
	sh -c "test $rc -eq 1 && grep -q 'offset 16: a record of type FINISHED_ROUND (68) before any ATTR' err && ! test -e x.data"
check "... and nothing else said" test "$(wc -l <err)" -eq 1
"$fake" inject --no-capture -i stream-aux.data >x.data 2>err
check "a record announcing 1 GiB after it: refused by its offset, nothing held" \
	grep -q "stream-aux.data: offset 136: a record announcing 1073741824 bytes after it" err

# Another machine's stream: passed on unchanged, without this one's records.
"$fake" inject --no-capture --all-processes -i stream-elsewhere.data -o elsewhere.data 2>err
rc=$?
sed 's/^/# /' err
check "another host's stream: status 0 (got $rc), said why nothing is added" \
	sh -c "test $rc -eq 0 && grep -q 'stream-elsewhere.data was recorded on host elsewhere.*passed on unchanged' err"
check "... none of this machine's mappings in it (the stand-in's pid 4242)" \
	sh -c "! '$fake' dump elsewhere.data | grep -q ' 4242/'"
check "... every sample of it kept" test "$(samples elsewhere.data)" = "$all"
perf record -q -e cpu-clock -o - -- sleep 1 2>/dev/null |
	"$fake" inject --no-capture --all-processes -o here.data 2>/dev/null
check "... where this machine's stream gets them" sh -c "'$fake' dump here.data | grep -q ' 4242/'"

# A file still being written: followed until its writer closes it.
rm -f growing.data half
feed stream.data 2 >growing.data &
tap_wait_for half
"$fake" inject --no-capture -i growing.data -o grown.data 2>err
rc=$?
wait
check "-i a file being written: status 0 (got $rc)" test $rc -eq 0
check "... read to the end its writer wrote ($(samples grown.data) of $all samples)" \
	test "$(samples grown.data)" = "$all"
check "... without doubting it was being written" sh -c "! grep -q 'cannot tell' err"

# An input name that links to a device: never opened.
ln -s /dev/zero zero.data
"$fake" inject --no-capture -i zero.data -o x.data 2>err
check "-i a link to a device: refused, not opened" \
	grep -q "zero.data: a character device, expected perf's data in a FIFO or a file" err

# 80 MB of build-id records: beside the file on disk, not in memory.
mem()
{
	/usr/bin/time -f %M "$fake" inject --no-capture -i "$1" -o "$2" 2>&1 >/dev/null | tail -n 1
}
small=$(mem stream-ids-small.data ids-small.out)
big=$(mem stream-ids-big.data ids-big.out)
check "20,000 build-id records of 4 KB (80 MB) take no more memory than 2,000: ${big} KB, ${small} KB" \
	test $((big - small)) -lt 16384
for perf in $(tap_perfs); do
	check "... each in the file's table ($(tap_perf_label $perf))" \
		sh -c "test \$($perf buildid-list -i ids-big.out 2>/dev/null | grep -c /usr/lib/ids/) -eq 20000"
done

# A reader gone (| head): said, and no hang.
timeout 30 sh -c "'$fake' inject --no-capture -i stream-ids-small.data 2>err | head -c 4096 >/dev/null"
check "the pipe's reader gone: inject ends (status $?), saying so" \
	grep -q "the reader closed the pipe" err

# The real Ctrl-C: perf, perf inject and mmap3 inject in one process
# group, signalled as the terminal does, perf's stream teed to both
# (tee -i lets Ctrl-C pass): mmap3's file has at least the samples perf
# inject -o keeps.  Started with SIGINT as a terminal's foreground has it
# (a script's background jobs ignore it).
if perf record -q -e cpu-clock -o - -- true >/dev/null 2>&1; then
	mkfifo pi.fifo
	setsid python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp("sh", ["sh", "-c", sys.argv[1]])' "perf inject -i - -o perf-inject.data <pi.fifo 2>/dev/null &
		perf record -q -e cpu-clock -o - -- sh -c 'while :; do :; done' 2>/dev/null |
		tee -i pi.fifo | '$fake' inject --no-capture -o ctrl-c.data 2>ctrl-c.err; wait" &
	leader=$!
	sleep 3
	kill -INT -- -$leader
	wait $leader
	p=$(samples perf-inject.data)
	m=$(samples ctrl-c.data)
	sed 's/^/# /' ctrl-c.err
	check "Ctrl-C to perf record | inject -o: $m samples kept (perf inject -o beside it: $p)" \
		sh -c "test '$m' -ge '$p' && test '$m' -gt 0"
	check "... perf report reads the file" \
		sh -c "perf report -i ctrl-c.data --stdio 2>/dev/null | grep -q '^# Samples: '"
else
	tap_skip "perf record does not work on this machine"
fi

tap_done
