#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Outputs that cannot be abused (issue #12, 2), through the commands:
# -o is never a symbolic link, FIFO, device node or an input by any name;
# nothing is written through a name planted where the old tool put its
# temporary file; outputs are 0600; a killed run leaves nothing.  The
# cases of outfile.c itself are in outfile_test.c.  Prints TAP.
#
#   tests/host/output_test.sh MMAP3 MMAP3-FAKE
set -u

mmap3=$1
fake=$2
craft=$(cd "$(dirname "$0")" && pwd)/craft.py
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1
umask 022

"$craft" reload-perf perf.data
"$craft" reload-side side.data
echo "precious" >victim

# refused NAME OUT PATTERN: merge to OUT fails with status 1, saying PATTERN.
refused()
{
	timeout 10 "$mmap3" merge perf.data side.data -o "$2" 2>err
	local rc=$?
	check "$1: merge refuses it (status 1)" test $rc -eq 1
	check "$1: ... saying so" grep -q -- "$3" err
}

ln -s victim link.data
refused "a symbolic link" link.data "link.data: a symbolic link, not replaced"
check "... whose target is untouched" grep -qx precious victim
mkfifo fifo.data
refused "a FIFO" fifo.data "fifo.data: a FIFO, not replaced"
check "... which is still a FIFO" test -p fifo.data
if mknod null.data c 1 3 2>/dev/null; then
	refused "a device node" null.data "null.data: a device node, not replaced"
	check "... which is still the device" test -c null.data
else
	tap_skip "mknod is not permitted here"
fi
ln perf.data hardlink.data
refused "an input under another name" hardlink.data "the same file as the input perf.data"
mkdir sub
refused "an input spelled another way" sub/../side.data "the same file as the input side.data"
check "the inputs are intact" sh -c "'$craft' reload-perf a && cmp a perf.data && '$craft' reload-side b && cmp b side.data"

# The old tool wrote OUT.mmap3-tmp, through whatever was planted there.
ln -s victim merged.data.mmap3-tmp
"$mmap3" merge perf.data side.data -o merged.data 2>err
check "merge writes its output past a link planted at the old temporary name" test $? -eq 0
check "... and not through it" grep -qx precious victim
check "the output is 0600 under umask 022, as perf creates perf.data" \
	test "$(stat -c %a merged.data)" = 600
cp merged.data merged.orig
ln merged.data merged.link
"$mmap3" merge perf.data side.data -o merged.data 2>err
check "merge replaces an existing regular output" test $? -eq 0
check "... by its name, not writing through another link to it" cmp merged.orig merged.link
check "... and keeps it as merged.data.old, as perf record keeps perf.data" \
	sh -c "cmp merged.orig merged.data.old && grep -q 'kept the previous merged.data as merged.data.old' err"
cp perf.data in.data.old
"$mmap3" merge in.data.old side.data -o in.data 2>err
"$mmap3" merge in.data.old side.data -o in.data 2>err
rc=$?
check "an output whose .old is an input is refused (status $rc), the input kept" \
	sh -c "test $rc -eq 1 && cmp perf.data in.data.old && grep -q 'would lose the input in.data.old' err"
"$mmap3" merge perf.data side.data -o - >/dev/null 2>err
rc=$?
check "merge -o - is refused (status $rc), saying files are written, not streams" \
	sh -c "test $rc -eq 2 && grep -q 'not streams' err"
check "no temporary file is left" sh -c "! ls -A | grep -q '^\\..*mmap3-'"

# record: the same checks, before it starts.
MMAP3_FAKE=rate=10 "$fake" record -o link.data -- true 2>err
check "record refuses a symbolic link as its output (status 1)" test $? -eq 1
check "... before running the command" grep -q "link.data: a symbolic link" err
MMAP3_FAKE=rate=10 "$fake" record -o side2.data -- true 2>/dev/null
check "record's output is 0600" test "$(stat -c %a side2.data)" = 600
# Its command, orphaned, ends by itself.
MMAP3_FAKE=rate=100 "$fake" record -o killed.data -- sleep 3 2>/dev/null &
pid=$!
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
check "record killed with SIGKILL leaves no file and no temporary file" \
	sh -c "! ls -A | grep -q 'killed\\|^\\..*mmap3-'"

# The side file given perf's own output's name: refused before anything
# runs, as either file would lose the other (perf record -o, --output,
# and perf.data when it has neither).
for cmd in "perf record -o ./perf.data -- true" "perf record --output=perf.data -- true" \
	   "perf record -- true"; do
	# Standard output no pipe: perf would write a pipe there instead.
	"$fake" record -o perf.data -- $cmd >/dev/null 2>err
	rc=$?
	check "record -o perf.data -- $cmd: refused (status $rc)" \
		sh -c "test $rc -eq 2 && grep -q 'the command writes .*perf.data too' err"
done
check "... perf.data untouched" sh -c "'$craft' reload-perf a && cmp a perf.data"
"$fake" record -o - -- true 2>err
check "record -o - is refused (status $?)" grep -q 'not a stream' err

tap_done
