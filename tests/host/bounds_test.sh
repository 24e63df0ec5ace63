#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a small or crafted input can cost dump and merge: perf.data
# sections that all name the same bytes (thousands of attrs on one block
# of ids, every feature on one block) are refused before they are read
# over and over, and merge copies an input's features into its output
# without holding them in memory, however large.  Memory is the peak
# resident size of the tool (built with ASan, so a few tens of MB at
# rest).  Prints TAP.
#
#   tests/host/bounds_test.sh MMAP3
set -u

mmap3=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
tap_tmpdir || exit 1

# peak LIMIT-MB CMD...: run CMD (status and output in rc, out, err); is
# its peak resident size under LIMIT-MB?
peak()
{
	python3 - "$@" <<'PY'
import resource, subprocess, sys
limit = int(sys.argv[1])
p = subprocess.run(sys.argv[2:], stdout=open('out', 'wb'), stderr=open('err', 'wb'))
kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open('rc', 'w').write('%d\n' % p.returncode)
print('peak %d MB, limit %d MB' % (kb >> 10, limit))
sys.exit(0 if kb < limit << 10 else 1)
PY
}

python3 - "$here" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
import craft
# 4096 attrs on one 64 KiB block of ids: 256 MiB if each read its own copy.
open('ids.data', 'wb').write(craft.ids_amplified(4096, 65536))
# Every feature on one 1 MiB block: merge would copy it 252 times.
open('features.data', 'wb').write(craft.features_amplified(1 << 20))
# perf's file of reload-perf with a 128 MiB CMDLINE feature.
f = craft.host_features()
f[11] = bytes(range(256)) * (1 << 19)
r = craft.reload_perf()
open('side.data', 'wb').write(craft.reload_side())
attrs = [craft.attr(sample_type=craft.ST)]
recs = [craft.mmap2(craft.ST, 100, 0x7f0000000000, 0x1000, 0, craft.LIB, 1000),
        craft.sample(100, 0x7f0000000100, 1100)]
open('big.data', 'wb').write(craft.file_mode(attrs, recs, f))
PY

check "dump of 4096 attrs whose ids are one 64 KiB block: under 64 MB" peak 64 "$mmap3" dump ids.data
check "... refused, naming the offset: $(head -c 200 err)" \
	sh -c "grep -q '^1$' rc && grep -qE '^mmap3: ids.data: offset [0-9]+: .*(overlap|expected at most)' err"
check "merge of every feature on one 1 MiB block: under 64 MB" \
	peak 64 "$mmap3" merge features.data side.data -o out.data
check "... refused, naming the offset: $(head -c 200 err)" \
	sh -c "grep -q '^1$' rc && grep -qE '^mmap3: features.data: offset [0-9]+: .* overlap' err && test ! -e out.data"
check "merge of a perf.data with a 128 MiB feature: under 64 MB (not held in memory)" \
	peak 64 "$mmap3" merge big.data side.data -o out.data
check "... succeeds" grep -q '^0$' rc
check "... and copies it byte for byte" python3 - <<'PY'
import struct, sys
def feature(path, bit):
    b = open(path, 'rb').read()
    data_off, data_size = struct.unpack_from('<QQ', b, 40)
    feat = struct.unpack_from('<4Q', b, 72)
    n = sum(bin(feat[i // 64] >> (i % 64) & 1).count('1') for i in range(bit))
    assert feat[bit // 64] >> (bit % 64) & 1
    off, size = struct.unpack_from('<QQ', b, data_off + data_size + 16 * n)
    return b[off:off + size]
a, b = feature('big.data', 11), feature('out.data', 11)
print(len(a), len(b))
sys.exit(0 if len(a) == 128 << 20 and a == b else 1)
PY

tap_done
