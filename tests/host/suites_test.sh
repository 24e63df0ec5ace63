#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The comparison of the suites' two passes (tests/vm/suites-compare, which
# the guests run: tests/suites) can fail: a test that passes without the
# module and fails or is skipped with a session, one skipped without and
# failing with, one missing from either pass, each fails it; a test that
# fails without the module is listed as skipped, whatever it did with.
# Run with the host's awk and busybox's (the guests'), which must agree.
# Prints TAP.
#
#   tests/host/suites_test.sh
set -u

compare=$(cd "$(dirname "$0")/../vm" && pwd)/suites-compare
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

echo "TAP version 13"

# compared SHELL NONE SESSION: the comparison's TAP; its status in $tmp/rc.
compared()
{
	printf "$2" >none
	printf "$3" >session
	$1 "$compare" none session >out
	echo $? >rc
}

# line_is NAME PATTERN: a line of the last comparison matches PATTERN.
line_is()
{
	grep -qE "$1" out
}

# busybox's awk first in PATH: what the guest's busybox sh runs.
mkdir bb
command -v busybox >/dev/null && ln -s "$(command -v busybox)" bb/awk
for sh in sh "busybox sh"; do
	by="(the host's sh and awk)"
	if [ "$sh" != sh ]; then
		by="(busybox sh and awk)"
		if [ ! -e bb/awk ]; then
			tap_skip "busybox is not installed"
			continue
		fi
		sh="env PATH=$tmp/bb:$PATH busybox sh"
	fi

	compared "$sh" 'a pass\nb pass\nc skip not in this version\n' \
		'a pass\nb pass\nc skip not in this version\n'
	check "the same pass set passes $by" test "$(cat rc)" -eq 0
	check "... each test a line, in order, the skipped one skipped $by" \
		sh -c "grep -c . out | grep -qx 4 && sed -n 1p out | grep -qx 'ok 1 a' &&
			sed -n 3p out | grep -qx 'ok 3 c # SKIP not in this version' &&
			tail -n 1 out | grep -qx '# compared: 3'"

	compared "$sh" 'a pass\nb pass\n' 'a pass\nb fail status 1\n'
	check "a test passing without the module, failing with it, fails $by" test "$(cat rc)" -eq 1
	check "... and says so, with why $by" \
		line_is '^not ok 2 b: passes without the module, fails with a session \(status 1\)$'

	compared "$sh" 'a pass\n' 'a skip no resources\n'
	check "... skipped with the session, fails too $by" test "$(cat rc)" -eq 1

	compared "$sh" 'a fail status 2\nb pass\n' 'a fail status 2\nb pass\n'
	check "a test failing without the module is listed, not counted $by" test "$(cat rc)" -eq 0
	check "... as a skip that says it $by" \
		line_is '^ok 1 a # SKIP fails without the module too \(fails with the session\): listed, not counted$'

	compared "$sh" 'a skip not here\n' 'a fail status 1\n'
	check "a test skipped without the module, failing with it, fails $by" test "$(cat rc)" -eq 1

	compared "$sh" 'a pass\nb pass\n' 'a pass\n'
	check "a test missing from the session's pass fails $by" test "$(cat rc)" -eq 1
	check "... by name $by" line_is '^not ok 2 b: ran without the module, not with the session$'

	compared "$sh" 'a pass\n' 'a pass\nz pass\n'
	check "a test the session's pass alone ran fails $by" test "$(cat rc)" -eq 1

	compared "$sh" '' 'a pass\n'
	check "an empty pass without the module fails $by" test "$(cat rc)" -eq 1

	printf 'a pass\n' >none
	: >session
	TAP_N=0 $sh "$compare" none session >out
	check "an empty pass with the session fails $by" test $? -eq 1
done

tap_done
