#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bash completion (userspace/mmap3.bash-completion): subcommands,
# options, what options take, the command after "record --"; and its
# option lists are each subcommand's --help, no more, no fewer.  Prints
# TAP.
#
#   tests/host/completion_test.sh MMAP3
set -u

mmap3=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_tmpdir || exit 1
# shellcheck source=/dev/null
. "$top/userspace/mmap3.bash-completion"

# comp WORD...: what completing the last WORD offers, one a line, sorted.
comp()
{
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	_mmap3 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}" | sort
}
has() { grep -qx -- "$1"; }

check "mmap3 re<TAB>: record" test "$(comp mmap3 re)" = record
check "mmap3 <TAB>: every subcommand" \
	test "$(comp mmap3 '' | tr '\n' ' ')" = "--help --version buildid capture dump fetch help inject merge record stat version "
check "mmap3 record --ca<TAB>: the capture options" \
	test "$(comp mmap3 record --ca | tr '\n' ' ')" = "--capture --capture-max-file --capture-max-files --capture-max-seconds --capture-max-total "
check "mmap3 record -k mo<TAB>: the clocks perf -k takes" \
	test "$(comp mmap3 record -k mo | tr '\n' ' ')" = "mono monotonic monotonic_raw "
mkdir dir.d
: >file.data
check "mmap3 record --capture <TAB>: directories only" test "$(comp mmap3 record --capture '')" = dir.d
check "mmap3 merge <TAB>: files" sh -c "echo '$(comp mmap3 merge '')' | grep -qx file.data"
check "mmap3 buildid --pid <TAB>: process ids, this one among them" \
	sh -c "echo '$(comp mmap3 buildid --pid '')' | grep -qx $$"
check "mmap3 record -o x -- <TAB>: commands (sh among them)" \
	sh -c "echo '$(comp mmap3 record -o x -- s)' | grep -qx sh"
check "mmap3 record -- perf rec<TAB>: no mmap3 option after --" \
	sh -c "! echo '$(comp mmap3 record -- perf --me)' | grep -qx -- --merge"
check "mmap3 help <TAB>: the subcommands" sh -c "echo '$(comp mmap3 help '')' | grep -qx merge"

# Each subcommand's options as its --help gives them, and as completed.
for cmd in record inject merge dump buildid stat version; do
	# The option lines ("  -o, --output FILE"), and --help, which every one takes.
	helped=$({ "$mmap3" "$cmd" --help | grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z-]*' |
		   grep -o -- '--[a-z-]*'; echo --help; } | sort -u | tr '\n' ' ')
	var=_mmap3_opts_$cmd
	# shellcheck disable=SC2086
	completed=$(printf '%s\n' ${!var} | sort -u | tr '\n' ' ')
	check "mmap3 $cmd: the completion's options are --help's: $completed" \
		test "$helped" = "$completed"
done
tap_done
