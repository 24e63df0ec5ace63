#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# gdb as a consumer of a capture store (issue #44, 3): a core of a
# program whose binary was replaced at its path after it was captured.
# With DEBUGINFOD_URLS naming debuginfod serving the store, gdb fetches
# the executable by the core's build-id and names the function the
# process was in; without it, it names none.  Captures by the stand-in
# device (mmap3-fake).  Prints TAP.
#
#   tests/host/gdb_core_test.sh MMAP3-FAKE
set -u

fake=$1
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/debuginfod.sh"
tap_tmpdir || exit 1

if ! command -v gdb >/dev/null || ! command -v gcore >/dev/null || ! command -v debuginfod >/dev/null; then
	tap_skip "no gdb or debuginfod (tests/setup installs them)"
	tap_done
	exit
fi
for v in 1 2; do
	printf 'int gdb_v%s_spin(void) { volatile unsigned long i; for (i = 0;; i++); return 0; }\nint main(void) { return gdb_v%s_spin(); }\n' $v $v >p$v.c
	cc -O0 -o v$v p$v.c
done
cp v1 prog
./prog &
pid=$!
printf '%s\0%s\0' "$tmp/v1" "$tmp/prog" >pairs
MMAP3_FAKE=files=$tmp/pairs "$fake" record -q -o side.data --capture store -- true
check "the program captured (record --capture)" sh -c "test -n \"\$(find store -name elf -newer pairs)\""
gcore -o core $pid >gcore.log 2>&1
check "a core of it (gcore)" test -s core.$pid
kill $pid
wait $pid 2>/dev/null
rm -f prog
cp v2 prog

gdb -batch prog -c core.$pid -ex bt >plain.txt 2>&1
sed 's/^/# plain: /' plain.txt | grep '#[0-9]' | head -n 3
check "gdb given the binary now at the path: the other build's function, or none" \
	sh -c "! grep -q gdb_v1_spin plain.txt"

debuginfod_start "$tmp/store"
trap debuginfod_stop EXIT
export DEBUGINFOD_URLS=$debuginfod_url DEBUGINFOD_CACHE_PATH=$tmp/client
id=$(perf buildid-list -i v1 2>/dev/null)
debuginfod_fetch "$id" >/dev/null
rm -rf "$tmp/client/$id"
gdb -batch -iex 'set debuginfod enabled on' -c core.$pid -ex bt >fetched.txt 2>&1
sed 's/^/# debuginfod: /' fetched.txt | grep '#[0-9]' | head -n 3
check "gdb with DEBUGINFOD_URLS: fetches the captured build and names its function" \
	grep -q 'in gdb_v1_spin ()' fetched.txt
debuginfod_stop
trap - EXIT
tap_done
