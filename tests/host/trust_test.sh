#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Output people and programs can trust (issue #12, 7): dump --json is
# valid JSON whatever bytes the paths hold, and gives them back; the text
# dump holds no control character; a write error (/dev/full) is status
# 1; a FIFO as input is refused, not waited on; mmap3's lost records stay
# apart from perf's own lost chunks in perf report; every subcommand
# answers --help with status 0.  Prints TAP.
#
#   tests/host/trust_test.sh MMAP3
set -u

mmap3=$1
craft=$(cd "$(dirname "$0")" && pwd)/craft.py
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

"$craft" hostile-side hostile.data
"$mmap3" dump --json hostile.data >dump.json 2>err
check "dump --json of paths with newlines, escapes, bad UTF-8: status 0" test $? -eq 0
check "... is JSON, and each path comes back byte for byte (os.fsencode)" python3 -c "
import json, os, sys
d = json.load(open('dump.json', encoding='utf-8'))
want = [b'/tmp/a\nb', b'/tmp/\x1b[31mred', b'/tmp/\xff\xfe-not-utf8', '/tmp/\u202eevil'.encode(),
        b'/tmp/quote\"back\\\\slash', '/tmp/caf\u00e9'.encode()]
got = [os.fsencode(r['filename']) for r in d['records'] if r['type'] == 'MMAP2']
print(got)
sys.exit(got != want)"
"$mmap3" dump hostile.data >dump.txt 2>err
check "the text dump holds no control character, is UTF-8, one line a record" python3 -c "
import sys
t = open('dump.txt', 'rb').read().decode('utf-8')
bad = [c for c in t if (ord(c) < 32 and c != '\n') or 0x7f <= ord(c) <= 0x9f or c == '\u202e']
lines = [l for l in t.split('\n') if ' MMAP2 ' in l]
sys.exit(bool(bad) or len(lines) != 6)"
check "... writing them escaped: \\n, \\x1b, \\xff, \\u202e, \\\\" \
	sh -c "grep -qF '/tmp/a\\nb' dump.txt && grep -qF '/tmp/\\x1b[31mred' dump.txt &&
	       grep -qF '/tmp/\\xff\\xfe-not-utf8' dump.txt && grep -qF '/tmp/\\u202eevil' dump.txt &&
	       grep -qF 'quote\"back\\\\slash' dump.txt"

for cmd in "dump hostile.data" "dump --json hostile.data" "--help" "merge --help"; do
	$mmap3 $cmd >/dev/full 2>err
	rc=$?
	check "mmap3 $cmd >/dev/full: status 1 (got $rc)" test $rc -eq 1
	check "... saying why" grep -q "^mmap3: writing to standard output: No space left on device" err
done

mkfifo fifo.data
timeout 10 "$mmap3" dump fifo.data >/dev/null 2>err
rc=$?
check "a FIFO given to dump is refused at once: status 1 (got $rc)" test $rc -eq 1
check "... saying what it is" grep -q "fifo.data: offset 0: not a regular file (a FIFO" err
"$craft" reload-perf perf.data
timeout 10 "$mmap3" merge perf.data fifo.data -o out.data 2>err
check "a FIFO given to merge as the side file is refused too: status $?" grep -q "fifo.data: offset 0: not a regular file" err
# Names others may plant: looked at before they are opened, so a link to
# a device is never opened (/dev/ptmx would make a terminal) and a FIFO
# named as the device is never waited for.
ln -s /dev/ptmx ptmx.data
"$mmap3" merge perf.data ptmx.data -o out.data 2>err
check "a link to /dev/ptmx given to merge is refused without opening it: $(cat err)" \
	grep -q "ptmx.data: offset 0: not a regular file (a character device)" err
"$mmap3" dump ptmx.data >/dev/null 2>err
check "... and given to dump" grep -q "ptmx.data: offset 0: not a regular file (a character device)" err
MMAP3_DEVICE=$PWD/fifo.data timeout 10 "$mmap3" stat >/dev/null 2>err
rc=$?
check "MMAP3_DEVICE naming a FIFO: refused, not waited for (status $rc, 124 if it hung)" \
	sh -c "test $rc -eq 1 && grep -q 'fifo.data: a FIFO, expected the mmap3 character device' err"

# perf's own lost chunks (PERF_RECORD_LOST) and mmap3's lost records.
"$craft" lost-perf lost-perf.data
"$craft" lost-side lost-side.data
"$mmap3" merge lost-perf.data lost-side.data -o lost.data 2>err
check "merge warns that the side file lost records" grep -q "WARNING: lost-side.data lost 7 records" err
perf report -i lost.data --stdio >report.txt 2>&1
check "perf report: perf's own loss is its lost chunks" grep -q "lost 1 chunks" report.txt
check "... mmap3's are apart, as lost samples" grep -q "^# Total Lost Samples: 7$" report.txt
perf report --stats -i lost.data >stats.txt 2>&1
check "perf report --stats counts them apart: LOST and LOST_SAMPLES" \
	sh -c "grep -q ' LOST events: *1 ' stats.txt && grep -q 'LOST_SAMPLES events: *1 ' stats.txt"

for c in record merge dump buildid stat version; do
	"$mmap3" $c --help >help.txt 2>&1
	rc=$?
	check "mmap3 $c --help: status 0 (got $rc) and its usage" \
		sh -c "test $rc -eq 0 && grep -q '^usage: mmap3 $c' help.txt"
done

tap_done
