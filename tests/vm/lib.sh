# SPDX-License-Identifier: GPL-2.0
# Shared definitions for the test rig scripts; sourced, not run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MMAP3_CACHE=${MMAP3_CACHE:-$TOP/.cache}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
DEBIAN_SECURITY_MIRROR=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

die()
{
	echo "${0##*/}: $*" >&2
	exit 1
}

log()
{
	echo "${0##*/}: $*" >&2
}

# kernel_line NAME: print "name release image build" of a matrix kernel.
kernel_line()
{
	local line
	line=$(grep -v '^#' "$TOP/tests/kernels" | awk -v n="$1" '$1 == n')
	[ -n "$line" ] || die "no kernel '$1' in tests/kernels (have: $(kernel_names | tr '\n' ' '))"
	echo "$line"
}

kernel_names()
{
	grep -v '^#' "$TOP/tests/kernels" | awk 'NF { print $1 }'
}

# kernel_env NAME: load what tests/vm/fetch recorded for a kernel.
kernel_env()
{
	local env=$MMAP3_CACHE/kernels/$1/env
	[ -f "$env" ] || "$TOP/tests/vm/fetch" "$1" || die "cannot fetch kernel $1"
	. "$env"
}
