#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmap3 record's event loop (issue #12, 6), with the stand-in device of
# mmap3-fake (a one-page pipe fed at a set rate, so what is not read in
# time is lost): records are read until the command has been reaped, so
# none is lost while it takes its time to exit after SIGINT, as perf does
# writing its file; the command gets a signal once, whether it came from
# the terminal (to the whole process group) or was sent to mmap3 alone;
# SIGTERM, SIGHUP and SIGPIPE end a recording without a command with a
# whole file; the command inherits no descriptor of mmap3's; mmap3 does
# not spin while waiting (its waits counted with strace).  Prints TAP.
#
#   tests/host/record_loop_test.sh MMAP3-FAKE
set -u

fake=$1
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

# A command that counts its SIGINTs and takes a second to exit after the
# first, as perf record does writing its file.
cat >cmd.sh <<'EOS'
n=0
trap 'n=$((n + 1)); echo $n >count' INT
while [ $n -eq 0 ]; do sleep 0.1; done
sleep 1
exit 0
EOS

mappings() { "$fake" dump "$1" 2>/dev/null | grep -c ' MMAP2 '; }

# 1. SIGINT to mmap3 alone: passed on once, records read until the end.
MMAP3_FAKE=rate=300 "$fake" record -o sigint.data -- sh cmd.sh </dev/null 2>err &
pid=$!
sleep 1
kill -INT $pid
wait $pid
rc=$?
check "SIGINT sent to mmap3: it exits with the command's status 0" test $rc -eq 0
check "... the command got it once (count $(cat count 2>/dev/null))" test "$(cat count)" = 1
# Not reading for that second loses some 260 records (300, less the 40 a
# page holds).  A loaded machine may hold an ASan build back for a while
# (a third of a second costs 60), so the bound is 100, not 0: still far
# from what stopping at SIGINT would lose.
lost=$("$fake" dump sigint.data | awk '/LOST_SAMPLES/ { n += $(NF - 1) } END { print n + 0 }')
check "... and no record was lost while it took a second to exit ($lost lost, at most 100)" \
	test "$lost" -le 100
n=$(mappings sigint.data)
check "... the records of that second are in the file ($n mappings at 300 a second)" test "$n" -ge 300

# 2. Ctrl-C on a terminal: SIGINT to the whole foreground process group.
rm -f count
cat >term.py <<'EOS'
import os, pty, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
time.sleep(1.5)
os.write(fd, b'\x03')
while True:
    try:
        if not os.read(fd, 4096):
            break
    except OSError:
        break
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
EOS
MMAP3_FAKE=rate=300 python3 term.py "$fake" record -o ctrlc.data -- sh cmd.sh
rc=$?
check "Ctrl-C on the terminal: mmap3 exits with the command's status 0" test $rc -eq 0
check "... the command got SIGINT once, from the terminal, not again from mmap3 (count $(cat count 2>/dev/null))" \
	test "$(cat count)" = 1
check "... and the side file is whole" sh -c "perf script -i ctrlc.data --show-mmap-events 2>/dev/null | grep -q /usr/bin/fake"

# 3. Without a command: these signals end the recording with a whole file.
for sig in TERM HUP PIPE; do
	MMAP3_FAKE=rate=100 "$fake" record -o $sig.data </dev/null 2>/dev/null &
	pid=$!
	sleep 1
	kill -$sig $pid
	wait $pid
	rc=$?
	check "SIG$sig ends a recording without a command: status 0 (got $rc)" test $rc -eq 0
	check "... with a whole side file" sh -c "perf script -i $sig.data --show-mmap-events 2>/dev/null | grep -q /usr/bin/fake"
done
check "... and no temporary file" sh -c "! ls -A | grep -q mmap3-"

# 4. The command inherits what mmap3 inherited, and none of its own.
fdlist() { awk '/->/ { print $(NF - 2) }' "$1" | sort | tr '\n' ' '; }
ls -l /proc/self/fd </dev/null >direct 2>/dev/null
MMAP3_FAKE=rate=100 "$fake" record -o fds.data -- ls -l /proc/self/fd </dev/null >fds 2>/dev/null
sed 's/^/# /' fds
check "the command's descriptors are those of a command run without mmap3 ($(fdlist direct))" \
	test "$(fdlist fds)" = "$(fdlist direct)"
check "... none of them mmap3's (signalfd, pidfd, output)" \
	sh -c "! grep -q 'signalfd\|pidfd\|fds.data' fds"

# 5. No spinning: waiting for the command and for the end of the records
# (the stand-in takes half a second, like the module's worker) wakes the
# loop a few times, not thousands.  Counted, not timed, so the machine's
# load cannot change the verdict: the waits of record's own thread (strace
# without -f follows no other thread, so not the stand-in's producer).
MMAP3_FAKE=flush_ms=500 strace -qq -o waits \
	-e trace=poll,ppoll,select,pselect6,epoll_wait,epoll_pwait,nanosleep,clock_nanosleep \
	"$fake" record -o idle.data -- sleep 2 2>/dev/null
waits=$(grep -c . waits 2>/dev/null)
check "3 seconds of waiting: record's loop waited $waits times, no spinning (1 to 20)" \
	test "${waits:-0}" -ge 1 -a "${waits:-0}" -le 20

tap_done
