#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the mmap3 tool's command line and error reporting, where
# no module is loaded.  Prints TAP.
#
#   tests/host/tool_test.sh PATH-TO-MMAP3
set -u

mmap3=$(realpath "$1")
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

# exits_with STATUS PATTERN CMD...: CMD exits STATUS and its stderr
# matches the extended regex PATTERN.
exits_with()
{
	local want=$1 pattern=$2 err rc
	shift 2
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	echo "exit $rc (want $want), stderr: $err"
	[ $rc -eq "$want" ] && echo "$err" | grep -qE -- "$pattern"
}

# expect NAME STATUS PATTERN CMD...
expect()
{
	local name=$1
	shift
	check "$name" exits_with "$@"
}

expect "no command: usage, exit 2" 2 '^usage: mmap3 \[--version\] \[--help\] COMMAND' "$mmap3"
expect "unknown command named, exit 2" 2 "unknown command 'frobnicate'" "$mmap3" frobnicate
expect "help exits 0" 0 '^$' "$mmap3" help
expect "version with extra arguments: usage" 2 '^usage: mmap3 version' "$mmap3" version extra
expect "help --help: the usage, exit 0" 0 '^$' "$mmap3" help --help
check "version without the module: the tool's version, no module, exit 0" sh -c \
	"env MMAP3_DEVICE=/nonexistent/mmap3 '$mmap3' version >out.txt 2>err.txt &&
	 grep -q '^mmap3 tool ' out.txt && grep -qx '/nonexistent/mmap3: no module loaded' out.txt &&
	 test ! -s err.txt"
expect "missing device: names it and how to load the module" 1 \
	'^mmap3: /nonexistent/mmap3: No such file or directory: the mmap3 module is not loaded \(load it with .modprobe mmap3.' \
	env MMAP3_DEVICE=/nonexistent/mmap3 "$mmap3" stat
expect "not an mmap3 device: says so" 1 \
	'^mmap3: /dev/null: ABI version ioctl failed: Inappropriate ioctl for device: not an mmap3 device' \
	env MMAP3_DEVICE=/dev/null "$mmap3" version
expect "record without the module: names the device" 1 \
	'^mmap3: /nonexistent/mmap3: No such file or directory: the mmap3 module is not loaded' \
	env MMAP3_DEVICE=/nonexistent/mmap3 "$mmap3" record -o /tmp/mmap3-tool-test.data -- true
check "record without the module leaves no file" test ! -e /tmp/mmap3-tool-test.data
expect "record --pid with a non-number: names it" 2 '^mmap3: --pid abc: not a list of process ids' \
	"$mmap3" record --pid abc
expect "record --clock unknown: names it" 2 '^mmap3: --clock sundial: not a clock' \
	"$mmap3" record --clock sundial
expect "record --help exits 0" 0 '^$' "$mmap3" record --help
expect "buildid without arguments: usage" 2 '^usage: mmap3 buildid \[--json\] \[--no-module\] PATH' "$mmap3" buildid
expect "buildid --no-module without a PATH: usage" 2 '^usage: mmap3 buildid' \
	"$mmap3" buildid --no-module --kernel
expect "buildid --pid with a non-number: names it" 2 '^mmap3: --pid x: not a process id' \
	"$mmap3" buildid --pid x
expect "buildid --kernel without the module: names the device" 1 \
	'^mmap3: /nonexistent/mmap3: No such file or directory: the mmap3 module is not loaded' \
	env MMAP3_DEVICE=/nonexistent/mmap3 "$mmap3" buildid --kernel
expect "stat without the module: names the device" 1 '^mmap3: /nonexistent/mmap3: No such file' \
	env MMAP3_DEVICE=/nonexistent/mmap3 "$mmap3" stat
expect "dump without a file: usage" 2 '^usage: mmap3 dump \[--json\] FILE' "$mmap3" dump
expect "dump of a missing file: names it" 1 '^mmap3: /nonexistent.data: No such file or directory' \
	"$mmap3" dump /nonexistent.data
expect "merge without -o: says what is missing" 2 '^mmap3: no output: give -o OUT, or --in-place to write into a$' "$mmap3" merge a b
expect "merge of a missing input: names it" 1 '^mmap3: /nonexistent/perf.data: No such file or directory' \
	"$mmap3" merge /nonexistent/perf.data /nonexistent/side.data -o /tmp/mmap3-merge-test.data
# A character device nobody may open (the device is one: anything else is
# refused before it is opened).
tmpdir=$tmp/dev
mkdir "$tmpdir"
node=$tmpdir/mmap3
mknod "$node" c 1 3 2>/dev/null || cp -a /dev/null "$node"
chmod 000 "$node"
chmod 0755 "$tmpdir"
if [ "$(id -u)" -ne 0 ]; then
	expect "no permission: says which capability" 1 'needs CAP_PERFMON or CAP_SYS_ADMIN' \
		env MMAP3_DEVICE="$node" "$mmap3" version
else
	# root passes mode checks; take the capability away instead.
	expect "no permission: says which capability" 1 'needs CAP_PERFMON or CAP_SYS_ADMIN' \
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		env MMAP3_DEVICE="$node" "$mmap3" version
fi

tap_done
