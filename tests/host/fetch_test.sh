#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmap3 fetch (issue #44, 3): a perf.data recorded here, its program
# then deleted, is read with an empty build-id cache: the program is
# fetched by build-id from debuginfod (serving a store made by a
# capture) into the cache, and perf 6.1's and 7.2's report name its
# function; what no server has is said and counted; a file whose own
# build-id is not the one asked for is not kept (exit 1); without
# DEBUGINFOD_URLS, a usage error.  Prints TAP.
#
#   tests/host/fetch_test.sh MMAP3
set -u

mmap3=$1
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/debuginfod.sh"
tap_tmpdir || exit 1

if ! command -v debuginfod >/dev/null ||
	! perf record -q -e cpu-clock -o probe.data -- true >/dev/null 2>&1; then
	tap_skip "no debuginfod, or perf record does not work here (tests/setup installs debuginfod)"
	tap_done
	exit
fi
export PERF_CONFIG=/dev/null HOME=$tmp/home
printf 'int fetched_spin(void) { volatile unsigned long i; for (i = 0; i < 300000000UL; i++); return 0; }\nint main(void) { return fetched_spin(); }\n' >p.c
cc -O1 -o prog p.c
mkdir -p store
cp prog store/prog
perf record -q -e cpu-clock -o perf.data ./prog 2>/dev/null
id=$(perf buildid-list -i perf.data 2>/dev/null | sed -n "s| $tmp/prog\$||p")
rm -f prog
rm -rf "$HOME"

"$mmap3" fetch -i perf.data 2>err
rc=$?
check "without DEBUGINFOD_URLS: a usage error (got $rc)" test $rc -eq 2
check "... saying what to set" grep -q 'DEBUGINFOD_URLS is not set' err

debuginfod_start "$tmp/store"
trap debuginfod_stop EXIT
export DEBUGINFOD_URLS=$debuginfod_url DEBUGINFOD_CACHE_PATH=$tmp/client
debuginfod_fetch "$id" >/dev/null
"$mmap3" fetch -i perf.data 2>err
rc=$?
sed 's/^/# /' err
check "mmap3 fetch: exit 0 (got $rc)" test $rc -eq 0
check "... the program fetched into ~/.debug, byte for byte" \
	cmp store/prog "$HOME/.debug/.build-id/${id:0:2}/${id:2}/elf"
check "... what no server has said (the loader), and counted" \
	sh -c "grep -q 'ld-linux.*no server has it' err && grep -q '1 fetched, [1-9][0-9]* no server has' err"
for perf in $(tap_perfs); do
	check "... $(tap_perf_label $perf) report names its function" \
		sh -c "$perf report -i perf.data --stdio --sort sym 2>/dev/null | grep -q fetched_spin"
done
"$mmap3" fetch -i perf.data 2>err
check "again: nothing fetched, it is there" grep -q "1 in $HOME/.debug already, 0 fetched" err

# A server answering with another file: refused.
rm -rf "$HOME"
mkdir -p bin
printf '#!/bin/sh\necho %s\n' "$tmp/probe.data" >bin/debuginfod-find
chmod +x bin/debuginfod-find
PATH=$tmp/bin:$PATH "$mmap3" fetch -i perf.data 2>err
rc=$?
sed 's/^/# /' err
check "a file that is not the build-id asked for: exit 1 (got $rc)" test $rc -eq 1
check "... nothing kept" test ! -e "$HOME/.debug/.build-id/${id:0:2}/${id:2}"
debuginfod_stop
trap - EXIT
tap_done
