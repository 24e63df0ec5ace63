# SPDX-License-Identifier: GPL-2.0
# Shared definitions for the test rig scripts; sourced, not run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# What any clone on this machine can share: downloads, unpacked and built
# kernels, chroots, linux-source extracts.  Kept outside the checkout so a
# fresh clone (and CI) reuses it.
MMAP3_CACHE=${MMAP3_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mmap3}
# What belongs to this checkout: module builds, VM work directories, logs.
MMAP3_OUT=${MMAP3_OUT:-$TOP/.cache}
export MMAP3_CACHE MMAP3_OUT
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

# kernel_arch NAME: the architecture of a matrix kernel, amd64 or arm64
# (from its image package's name).
kernel_arch()
{
	local name release image build
	read -r name release image build < <(kernel_line "$1")
	case "$image" in
	*-arm64) echo arm64 ;;
	*) echo amd64 ;;
	esac
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

# fix_headers ROOT: Debian's header packages point into /usr/src and
# /usr/lib/linux-kbuild-* by absolute paths; make those of the tree
# unpacked in ROOT point into it, so a module can be built against it
# without installing anything (tests/vm/fetch).
fix_headers()
{
	local root=$1 link target
	find "$root" -type l | while read -r link; do
		target=$(readlink "$link")
		case "$target" in
		/usr/src/* | /usr/lib/linux-kbuild-*)
			ln -sfn "$root$target" "$link" ;;
		esac
	done
	grep -rlE '/usr/src/linux-headers-' "$root/usr/src" --include=Makefile 2>/dev/null |
		xargs -r sed -i -E "s#([ =])/usr/src/linux-headers-#\\1$root/usr/src/linux-headers-#g"
}

# needed_libs ELF DIR...: the shared libraries ELF needs, and theirs
# (DT_NEEDED, followed; another architecture's too), each found in the
# first DIR that has it: a line "SONAME PATH" each, or "SONAME -" for one
# in none of them.
needed_libs()
{
	local elf so d found seen=" "
	local need=("$1")
	shift
	while [ ${#need[@]} -gt 0 ]; do
		elf=${need[0]}
		need=("${need[@]:1}")
		for so in $(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			[[ $seen == *" $so "* ]] && continue
			seen="$seen$so "
			found=-
			for d in "$@"; do
				[ -e "$d/$so" ] && { found=$d/$so; break; }
			done
			echo "$so $found"
			[ "$found" = - ] || need+=("$found")
		done
	done
}

# cache_lock NAME: hold an exclusive lock on one item of the shared cache
# (a kernel, a chroot) until the calling script exits, so clones setting
# up at the same time wait for each other instead of writing into each
# other's downloads.
cache_lock()
{
	mkdir -p "$MMAP3_CACHE/locks"
	exec {_lockfd}>"$MMAP3_CACHE/locks/$1"
	flock "$_lockfd"
}

# tap_unreported LOG: a TAP "not ok" line for each program of a guest's
# LOG (tap_program, tests/lib/tap.sh) that failed without printing one:
# one that crashed.  Status 4 is kselftest's "skipped".
tap_unreported()
{
	tr -d '\r' <"$1" | awk '
		/^# program / { reported = 0 }
		/^not ok/ { reported = 1 }
		/^# exit [0-9]+ [0-9.]+ / && $3 != 0 && $3 != 4 && !reported {
			step = $0
			sub(/^# exit [0-9]+ [0-9.]+ /, "", step)
			printf "not ok - %s exited with status %d and reported no failure\n", step, $3
		}'
}

# now_ms: the wall clock in milliseconds, for the time a step took.
now_ms()
{
	local t=${EPOCHREALTIME/[.,]/}
	echo $((t / 1000))
}

# seconds MS: MS milliseconds as seconds with one decimal.
seconds()
{
	printf '%d.%d\n' $(($1 / 1000)) $(($1 % 1000 / 100))
}

# suites_args NAME: what make check runs of the suites other people wrote
# in kernel NAME (tests/vm/suites-guest's options; tests/suites), in
# about a minute and a half of guest time for the two passes of a stock
# kernel.  Every stock kernel: stress-ng's stressors for 15 s and the
# kernel's selftests, a pass, and one of perf's tests: perf costs about
# a second a command under emulation.  perf 6.1's buildid.sh (5 s) beside the
# kernels of merge_test's perf 6.1, perf 7's kallsyms.sh (2-4 s) beside
# the newer ones; perf 7's buildid.sh (14-19 s) is make stress's.  The
# debug kernel, whose checkers watch the module under what the suites
# do, runs stress-ng for 4 s and trinity for 8: everything runs 3 to 5
# times slower there, and the kernel's selftests (40 s a pass there) and
# perf's tests are the stock kernels', as the perf-judged selftests are.
suites_args()
{
	local kind
	kind=$(. "$MMAP3_CACHE/kernels/$1/env" 2>/dev/null; echo "${BUILD:-}")
	if [ "$kind" = source ]; then
		echo "--stress 4 --trinity 8 --no-kselftests"
		return
	fi
	case "$1" in
	5.10 | 6.1 | 6.1-arm64) echo "--stress 15 --perf-tests 6.1/buildid.sh" ;;
	*) echo "--stress 15 --perf-tests 7/kallsyms.sh" ;;
	esac
}
