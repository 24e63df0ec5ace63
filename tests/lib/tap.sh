# SPDX-License-Identifier: GPL-2.0
#
# TAP for the shell tests, on the host (bash) and in the test VMs (busybox
# sh): source it, then
#
#   check NAME CMD...   a test that passes if CMD succeeds; on failure the
#                       end of CMD's output follows as TAP comments
#   tap_skip REASON     a skipped test
#   tap_done            the plan; returns non-zero if a test failed
#   tap_perfs           the perf commands that judge the tests: the
#                       release's perf, then sid's perf 7.x where it is
#                       installed ($MMAP3_PERFS: the VMs' /opt/perf7/perf,
#                       the host's tests/vm/perf7); every check that reads
#                       a file with perf runs once with each
#   tap_perf_label PERF "perf 6.1", "perf 7.2": names which perf judged
#   tap_tmpdir          a directory of the test's own, $tmp, removed at
#                       exit; the test runs in it
#   tap_wait_for FILE [SECS]
#                       until FILE is there and not empty (SECS, default
#                       10, at most); non-zero if it never is
#   tap_program STEP CMD...
#                       in a test VM: run a test program that prints TAP,
#                       between "# program STEP" and "# exit STATUS S STEP"
#                       (S: its seconds, from the guest's uptime, which TCG
#                       keeps with the host's clock); returns non-zero if
#                       it failed.  The host's tap_unreported (tests/vm/
#                       lib.sh) turns a failure without "not ok" into one

tap_n=0
tap_failed=0
tap_log=$(mktemp)

tap_tmpdir()
{
	tmp=$(mktemp -d) || return 1
	trap 'rm -rf "$tmp" "$tap_log"' EXIT
	cd "$tmp"
}

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

tap_wait_for()
{
	local i=0
	while [ $i -lt $((${2:-10} * 10)) ]; do
		[ -s "$1" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

tap_skip()
{
	tap_n=$((tap_n + 1))
	echo "ok $tap_n # SKIP $1"
}

# tap_need_perf_record: where perf record does not work (no access to
# perf events), the test ends here, skipped; else probe.data is left.
tap_need_perf_record()
{
	perf record -q -e cpu-clock -o probe.data -- true >/dev/null 2>&1 && return 0
	tap_skip "perf record does not work on this machine"
	tap_done
	exit 0
}

tap_done()
{
	rm -f "$tap_log"
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

tap_program()
{
	local step=$1 t0 t1 st
	shift
	echo "# program $step"
	t0=$(tap_uptime_cs)
	"$@"
	st=$?
	t1=$(tap_uptime_cs)
	printf '# exit %d %d.%02d %s\n' "$st" $(((t1 - t0) / 100)) $(((t1 - t0) % 100)) "$step"
	[ "$st" -eq 0 ]
}

tap_uptime_cs()
{
	local up rest
	read -r up rest </proc/uptime
	echo "${up%.*}${up#*.}"
}

tap_perfs()
{
	echo "${MMAP3_PERFS:-perf}"
}

tap_perf_label()
{
	"$1" --version 2>/dev/null | sed -n 's/^perf version \([0-9]*\.[0-9]*\).*/perf \1/p' | grep . ||
		echo "$1 (does not run)"
}
