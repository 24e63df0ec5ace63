#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The systemd units of the fleet service (issue #44, 2): systemd-analyze
# verify takes both; each unit's ExecStart, as systemd would expand it
# (its Environment= defaults), runs here on a directory of the test's:
# mmap3-capture's with the stand-in device keeps a binary and stops at
# SIGTERM, mmap3-debuginfod's serves it.  (That the package installs them
# disabled, tests/deb-dkms checks.)  Prints TAP.
#
#   tests/host/units_test.sh MMAP3-FAKE
set -u

fake=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/debuginfod.sh"
tap_tmpdir || exit 1
units=$top/userspace/systemd

# Where the ExecStart names /usr/bin/mmap3, the stand-in; man pages are
# the package's, not installed here.
sed "s|/usr/bin/mmap3|$fake|" "$units/mmap3-capture.service" >mmap3-capture.service
cp "$units/mmap3-debuginfod.service" .
if command -v systemd-analyze >/dev/null && command -v debuginfod >/dev/null; then
	systemd-analyze verify --man=no ./mmap3-capture.service ./mmap3-debuginfod.service >verify.log 2>&1
	rc=$?
	sed 's/^/# /' verify.log
	check "systemd-analyze verify takes both units (status $rc)" \
		sh -c "test $rc -eq 0 && test ! -s verify.log"
else
	tap_skip "no systemd-analyze or debuginfod here"
fi

# exec_start UNIT: its ExecStart, continuation lines joined, Environment=
# defaults and $VAR / ${VAR} expanded as systemd does, the cache
# directories made the test's.
exec_start()
{
	python3 - "$1" "$tmp" <<'PY'
import re, sys
text = open(sys.argv[1]).read().replace('\\\n', ' ')
env = {}
for m in re.finditer(r'^Environment=(\w+)=(.*)$', text, re.M):
    env[m.group(1)] = m.group(2).strip('"')
line = re.search(r'^ExecStart=(.*)$', text, re.M).group(1)
words = []
for w in line.split():
    m = re.fullmatch(r'\$(\w+)', w)
    if m:
        words += env[m.group(1)].split()     # $VAR: split on whitespace
        continue
    words.append(re.sub(r'\$\{(\w+)\}', lambda m: env[m.group(1)], w))
words = [w.replace('/var/cache/', sys.argv[2] + '/cache/') for w in words]
print('\n'.join(words))
PY
}
mkdir -p -m 700 cache cache/mmap3-debuginfod
printf 'void _start(void) { for (;;); }\n' >tiny.c
id=02aabbccddeeff00112233445566778899aabbcc
cc -Os -nostdlib -static -Wl,--build-id=0x$id -s -o tiny tiny.c
printf '%s\0%s\0' "$tmp/tiny" /usr/bin/tiny >pairs
mapfile -t cmd < <(exec_start mmap3-capture.service)
echo "# ${cmd[*]}"
MMAP3_FAKE=files=$tmp/pairs "${cmd[@]}" 2>capture.log &
pid=$!
sleep 2
kill -TERM $pid
wait $pid
rc=$?
sed 's/^/# /' capture.log
check "mmap3-capture's command: stops at SIGTERM with status 0 (got $rc)" test $rc -eq 0
check "... the store made root's alone (0700)" sh -c "stat -c %a cache/mmap3 | grep -qx 700"
check "... the binary kept in it" cmp tiny "cache/mmap3/.build-id/${id:0:2}/${id:2}/elf"

if command -v debuginfod >/dev/null; then
	mapfile -t cmd < <(exec_start mmap3-debuginfod.service)
	echo "# ${cmd[*]}"
	port=$((20000 + (RANDOM * 7 + $$) % 30000))
	for ((i = 0; i < ${#cmd[@]}; i++)); do
		[ "${cmd[i]}" = 8003 ] && cmd[i]=$port
	done
	"${cmd[@]}" >debuginfod.log 2>&1 &
	debuginfod_pids=$!
	trap debuginfod_stop EXIT
	mkdir -p client
	echo 0 >client/cache_miss_s
	got=$(DEBUGINFOD_URLS=http://127.0.0.1:$port debuginfod_fetch $id)
	check "mmap3-debuginfod's command serves the store, byte for byte" \
		sh -c "test -n '$got' && cmp tiny '$got'"
	debuginfod_stop
	trap - EXIT
fi
tap_done
