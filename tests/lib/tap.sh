# SPDX-License-Identifier: GPL-2.0
#
# TAP for the shell tests, on the host (bash) and in the test VMs (busybox
# sh): source it, then
#
#   check NAME CMD...   a test that passes if CMD succeeds; on failure the
#                       end of CMD's output follows as TAP comments
#   tap_skip REASON     a skipped test
#   tap_done            the plan; returns non-zero if a test failed

tap_n=0
tap_failed=0
tap_log=$(mktemp)

check()
{
	tap_name=$1
	shift
	tap_n=$((tap_n + 1))
	if "$@" >"$tap_log" 2>&1; then
		echo "ok $tap_n $tap_name"
	else
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n $tap_name"
		tail -n 8 "$tap_log" | sed 's/^/# /'
	fi
}

tap_skip()
{
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP $1"
}

tap_done()
{
	rm -f "$tap_log"
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}
