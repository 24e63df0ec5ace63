#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A side file keeps what perf's records cannot say (issue #21, 7): a
# mapping's build-id status when it is not FOUND (TIMEOUT looks like a
# file without a build-id in an MMAP2) and its flags (CHANGED, DELETED),
# in the file's mmap3_status section, which mmap3 dump shows beside the
# record and every perf of tap_perfs skips.  mmap3-fake, the tool with a
# stand-in device, makes the records.  Prints TAP.
#
#   tests/host/side_status_test.sh MMAP3-FAKE
set -u

fake=$1
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

for i in 1 2; do
	printf 'int main(void) { return %d; }\n' $i >p$i.c
	cc -o p$i p$i.c -Wl,--build-id=0x0${i}aabbccddeeff00112233445566778899aabbcc
done
printf '%s\0%s\0' "$tmp/p1" "/usr/bin/slow" "$tmp/p2" "/usr/bin/plain" >pairs

# The first file not read in time (status 9, TIMEOUT) and changed (flag 8).
MMAP3_FAKE=files=$tmp/pairs,status=1:9:8 "$fake" record -o side.data -- true 2>err
check "record exits 0" test $? -eq 0
"$fake" dump side.data >dump 2>err
check "dump exits 0" test $? -eq 0
check "the file has the mmap3_status feature" grep -q '^features:.* mmap3_status' dump
check "dump shows the status and flags beside the record: $(grep /usr/bin/slow dump)" \
	grep -q 'MMAP2 .*/usr/bin/slow status=timeout flags=changed$' dump
check "... and nothing beside a record with its build-id and no flag" \
	sh -c "grep 'MMAP2 .*/usr/bin/plain' dump | grep -qv status="
"$fake" dump --json side.data >dump.json 2>err
check "dump --json: the status and flags as names" python3 -c '
import json, sys
recs = json.load(open("dump.json"))["records"]
slow = [r for r in recs if r.get("filename") == "/usr/bin/slow"]
plain = [r for r in recs if r.get("filename") == "/usr/bin/plain"]
sys.exit(not (slow and slow[0]["status"] == "timeout" and slow[0]["flags"] == ["changed"]
              and plain and "status" not in plain[0]))'
for perf in $(tap_perfs); do
	by=$(tap_perf_label $perf)
	$perf script -i side.data --show-mmap-events >script.out 2>script.err
	check "$by reads the side file with the section (exit $?)" \
		sh -c "grep -q 'PERF_RECORD_MMAP2.*/usr/bin/slow' script.out &&
		       grep -q 'PERF_RECORD_MMAP2.*/usr/bin/plain' script.out"
	$perf buildid-list -i side.data >bl.out 2>bl.err
	check "$by buildid-list reads it too" grep -q '^02aabbccddeeff00112233445566778899aabbcc /usr/bin/plain' bl.out
done

# Mappings of a container's processes: named as the container sees the
# file (as perf names them), the mount namespace and cgroup kept.
printf '%s\0%s\0' "$tmp/p1" "/ct1/app/bin/ctapp" >pairs2
MMAP3_FAKE=files=$tmp/pairs2,ns=1 "$fake" record -o side2.data -- true 2>err
check "record of a container's mappings exits 0" test $? -eq 0
"$fake" dump side2.data >dump2 2>err
check "its MMAP2 names /app/bin/ctapp, with the mount namespace and cgroup: $(grep ctapp dump2)" \
	grep -q 'MMAP2 .* /app/bin/ctapp status=found flags=none mnt_ns=4026532001 cgroup=101$' dump2
for perf in $(tap_perfs); do
	$perf script -i side2.data --show-mmap-events >script2.out 2>&1
	check "$(tap_perf_label $perf) shows the container's path" \
		grep -q 'PERF_RECORD_MMAP2.* /app/bin/ctapp$' script2.out
done

# A section that lies about its entries: one line, the file and what was expected.
python3 - side.data bad.data <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
# The header: magic, size, attr_size, attrs, data, event_types, features bitmap.
feat_off = 8 + 8 + 8 + 16 + 16 + 16
bits = int.from_bytes(data[feat_off:feat_off + 32], "little")
sec_base = struct.unpack_from("<QQ", data, 40)[0] + struct.unpack_from("<QQ", data, 40)[1]
n = bin(bits & ((1 << 250) - 1)).count("1")
off, size = struct.unpack_from("<QQ", data, sec_base + 16 * n)
struct.pack_into("<Q", data, off + 8, 1 << 40)
open(sys.argv[2], "wb").write(data)
PY
"$fake" dump bad.data >/dev/null 2>err
rc=$?
check "a damaged mmap3_status section: dump exits 1 (got $rc)" test $rc -eq 1
check "... in one line saying what was expected: $(head -n 1 err)" \
	sh -c "test \$(wc -l <err) -eq 1 && grep -q '^mmap3: bad.data: feature mmap3_status: .*expected version 1' err"

tap_done
