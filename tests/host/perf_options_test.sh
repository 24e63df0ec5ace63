#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mmap3 record --merge reads perf record's command line as perf does
# (issue #41, 5): its table of perf record's options holds every option
# each perf of tap_perfs lists in "perf record -h", with the same short
# letter and the same arity (no value, a required one, an optional one
# only after "="), and no option neither lists.  Prints TAP.
#
#   tests/host/perf_options_test.sh PERF-COMMAND-TEST
set -u

test_bin=$1
. "$(dirname "$0")/../lib/tap.sh"
tap_tmpdir || exit 1

"$test_bin" --options | sort >ours.txt
check "the tool knows perf record's options ($(wc -l <ours.txt))" test -s ours.txt
: >all.txt
for perf in $(tap_perfs); do
	by=$(tap_perf_label $perf)
	# "    -o, --output <file>", "        --aio[=<n>]", "    -g": S LONG ARITY.
	$perf record -h 2>&1 | python3 -c '
import re, sys
for line in sys.stdin:
    m = re.match(r"^\s+(?:-(\w), )?--([\w-]+)(\[=[^\]]*\])?( <[^>]*>)?", line)
    if m:
        s, l, opt, req = m.groups()
        print(s or "-", l, "optional" if opt else "required" if req else "none")
        continue
    m = re.match(r"^\s+-(\w)(\s|$)", line)
    if m:
        print(m.group(1), "-", "none")' | sort >theirs.txt
	check "$by lists its options ($(wc -l <theirs.txt))" test -s theirs.txt
	missing=$(comm -13 ours.txt theirs.txt | tr '\n' ';')
	check "... each known to mmap3 with its letter and arity${missing:+: not $missing}" \
		test -z "$missing"
	cat theirs.txt >>all.txt
done
# An option only sid's perf lists is "extra" when the release's judges alone.
if [ "$(tap_perfs | wc -w)" -lt 2 ]; then
	tap_skip "no option that no perf lists: one perf here ($(tap_perfs))"
else
	extra=$(sort -u all.txt | comm -23 ours.txt - | tr '\n' ';')
	check "mmap3 knows no option that no perf lists${extra:+: $extra}" test -z "$extra"
fi

tap_done
