#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmap3 inject in a pipe waits for the binaries it keeps: perf report -i -
# at the pipe's end looks for a mapping's binary in $HOME/.debug once, when
# it resolves the first of its samples, which perf delivers at a
# FINISHED_ROUND.  With the stand-in device, a mapping whose copy is slow
# (one byte a read, as from a FUSE file system): every FINISHED_ROUND
# after its record comes once its copy is kept; a copy slower than inject
# waits for (5 s) lets the stream go on, counted and said, and the copy is
# still kept.  The reader at the pipe's end is a script that looks, at
# each record, whether the copy is there.  Prints TAP.
#
#   tests/host/inject_copies_test.sh MMAP3-FAKE
set -u

fake=$1
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

tap_need_perf_record
export HOME=$tmp/home PERF_CONFIG=/dev/null

# An 800-byte ELF: a copy of it read a byte at a time takes 800 reads.
id=02aabbccddeeff00112233445566778899aabbcc
printf 'void _start(void) { for (;;); }\n' >tiny.c
cc -Os -nostdlib -static -Wl,--build-id=0x$id -Wl,-z,noseparate-code -s -o tiny tiny.c
printf '%s\0%s\0' "$tmp/tiny" /usr/bin/slow >pairs
copy=$HOME/.debug/.build-id/${id:0:2}/${id:2}/elf

# A workload on the CPU for 3 s: with 32 KiB buffers perf writes a round
# every few tens of milliseconds.
printf 'int main(void) { volatile unsigned long i; for (i = 0; i < 3000000000UL; i++); return 0; }\n' >w.c
cc -O1 -o w w.c

# The pipe's reader: at /usr/bin/slow's MMAP2 and at each FINISHED_ROUND
# after it, whether the copy is there ("mmap 0", "round 1", ...).
cat >reader.py <<'PY'
import os, struct, sys
copy, out = sys.argv[1], open(sys.argv[2], 'w')
f = sys.stdin.buffer
f.read(16)			# perf_pipe_file_header
seen = False
while True:
    h = f.read(8)
    if len(h) < 8:
        break
    typ, misc, size = struct.unpack('<IHH', h)
    body = f.read(size - 8)
    if typ == 10 and body[64:].split(b'\0')[0] == b'/usr/bin/slow':
        seen = True
        print('mmap', int(os.path.exists(copy)), file=out, flush=True)
    elif typ == 68 and seen:
        print('round', int(os.path.exists(copy)), file=out, flush=True)
PY

# run MS: a byte of the copy every MS ms, perf record | inject | reader.
run()
{
	rm -rf "$HOME" seen
	perf record -q -m 8 -e cpu-clock -o - -- ./w 2>/dev/null |
		MMAP3_FAKE=files=$tmp/pairs,slowread=1:$1 "$fake" inject --all-processes \
			--capture-max-seconds 60 2>err |
		python3 reader.py "$copy" seen
	sed 's/^/# /' err
}

run 1
rounds=$(grep -c '^round' seen)
check "a slow copy (about 1 s): perf's rounds went on after its mapping ($rounds)" \
	test "$rounds" -gt 1
check "... each once the copy was kept" sh -c "! grep -qx 'round 0' seen"
check "... the copy is the file, byte for byte" cmp tiny "$copy"
check "... inject says nothing of copies waited for in vain" \
	sh -c "! grep -q 'went on before a binary was kept' err"

run 8
late=$(grep -cx 'round 0' seen)
check "a copy slower than inject waits (about 7 s): perf's rounds went on before it was kept ($late)" \
	test "$late" -ge 2
check "... inject says so" grep -q '1 times perf.s stream went on before a binary was kept' err
check "... the copy is kept all the same" cmp tiny "$copy"
tap_done
