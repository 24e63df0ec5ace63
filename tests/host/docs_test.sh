#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Documentation that matches perf and the tool (issue #12, 8): mmap3(1)
# and a page per command (mmap3-record(1)...) render without a warning
# and are installed by make install (PREFIX, DESTDIR); every option each
# subcommand's --help offers is in its page, which the README names;
# PERF_BUILDID_DIR is never offered as something perf reads;
# and what they offer instead works with the host's perf (6.1): perf
# --buildid-dir DIR report resolves a deleted program from the capture
# directory mmap3 record --capture filled, where PERF_BUILDID_DIR=DIR
# does not.  Prints TAP.
#
#   tests/host/docs_test.sh MMAP3 MMAP3-FAKE
set -u

mmap3=$1
fake=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
tap_tmpdir || exit 1
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")

commands="record capture fetch inject merge dump buildid stat"
for page in mmap3 $(printf 'mmap3-%s ' $commands); do
	LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$top/docs/$page.1" >groff.err 2>&1
	check "$page(1) renders without a warning" test ! -s groff.err
	MANWIDTH=200 LC_ALL=C.UTF-8 man -l "$top/docs/$page.1" 2>/dev/null | col -b >$page.txt
	check "... with perf's sections" sh -c "for s in NAME SYNOPSIS DESCRIPTION 'EXIT STATUS' 'SEE ALSO'; do grep -q \"^\$s\" $page.txt || exit 1; done"
	check "... of this version ($version)" grep -q "\"mmap3 $version\"" "$top/docs/$page.1"
done
cat mmap3*.txt >man.txt
check "mmap3(1) names every command's page" \
	sh -c "for c in $commands; do grep -q \"mmap3-\$c(1)\" mmap3.txt || exit 1; done"

make -s -C "$top" install DESTDIR="$tmp/root" PREFIX=/usr >install.log 2>&1
check "make install DESTDIR=... PREFIX=/usr installs the tool" test -x root/usr/bin/mmap3
for page in mmap3 $(printf 'mmap3-%s ' $commands); do
	check "... and $page(1)" cmp "$top/docs/$page.1" root/usr/share/man/man1/$page.1
done
for unit in mmap3-capture mmap3-debuginfod; do
	check "... and the $unit service, not enabled" \
		cmp "$top/userspace/systemd/$unit.service" root/usr/lib/systemd/system/$unit.service
done
check "... where man finds what 'mmap3 help record' opens" \
	sh -c "MANPATH=$tmp/root/usr/share/man man -w mmap3-record | grep -q 'man1/mmap3-record.1'"
make -s -C "$top" uninstall DESTDIR="$tmp/root" PREFIX=/usr >>install.log 2>&1
check "make uninstall removes them all" sh -c "test -z \"\$(find root -type f)\""

for c in record inject merge dump buildid stat version; do
	"$mmap3" $c --help >help.txt 2>&1
	page=mmap3-$c.txt
	[ -e $page ] || page=mmap3.txt
	for opt in $(grep -oE -- '--[a-z][a-z-]+' help.txt | sort -u); do
		[ "$opt" = --help ] && continue
		check "$c $opt is in ${page%.txt}(1)" grep -qF -- "$opt" $page
	done
done
# The README is read in minutes: it names each page, which holds the options.
check "the README names every command's page" \
	sh -c "for c in $commands; do grep -qF \"mmap3-\$c(1)\" '$top/README.md' || exit 1; done"

# Wherever PERF_BUILDID_DIR is named, it is named as what perf 6.1 ignores.
"$mmap3" record --help >help.txt 2>&1
check "PERF_BUILDID_DIR is nowhere offered as something perf reads" \
	sh -c "! grep -h PERF_BUILDID_DIR '$top/README.md' man.txt help.txt | grep -v 'ignores\|does not read'"

# The advice, tried: a program captured, then deleted; perf finds it by
# build-id in the capture directory with --buildid-dir only.
cat >prog.c <<'EOF'
__attribute__((noinline)) int mmap3_docs_fn(int x) { return x * 3 + 1; }
int main(int argc, char **argv) { (void)argv; return mmap3_docs_fn(argc); }
EOF
cc -O1 -no-pie -o prog prog.c -Wl,--build-id=0x00112233445566778899aabbccddeeff00112233
printf '%s\0%s\0' "$tmp/prog" "$tmp/gone/prog" >pairs
MMAP3_FAKE=files=$tmp/pairs "$fake" record -o side.data --capture "$tmp/cache" -- true 2>/dev/null
check "record --capture kept the program" test -f "$tmp/cache/.build-id/00/112233445566778899aabbccddeeff00112233/elf"
# A perf.data of samples in mmap3_docs_fn of $tmp/gone/prog, which does not exist.
python3 - "$top/tests/host" "$tmp" <<'EOF'
import subprocess, sys
sys.path.insert(0, sys.argv[1])
import craft
fn = int(subprocess.run("nm prog | awk '/ mmap3_docs_fn$/ { print $1 }'", shell=True,
                        capture_output=True, text=True).stdout, 16)
seg = [l.split() for l in subprocess.run(['readelf', '-lW', 'prog'], capture_output=True,
                                         text=True).stdout.splitlines() if 'LOAD' in l and 'R E' in l][0]
bid = bytes.fromhex('00112233445566778899aabbccddeeff00112233')
r = [craft.comm(craft.ST, 100, 'prog', 5),
     craft.mmap2(craft.ST, 100, int(seg[2], 16), int(seg[4], 16), int(seg[1], 16), sys.argv[2] + '/gone/prog', 10, bid)]
r += [craft.sample(100, fn + 2, 20 + i) for i in range(10)]
open('perf.data', 'wb').write(craft.file_mode([craft.attr(sample_type=craft.ST)], r, craft.host_features()))
EOF
mkdir home
HOME=$tmp/home perf --buildid-dir "$tmp/cache" report -i perf.data --stdio --sort sym >with.txt 2>&1
check "perf --buildid-dir DIR report resolves the deleted program from DIR" grep -q '\[\.\] mmap3_docs_fn' with.txt
HOME=$tmp/home PERF_BUILDID_DIR=$tmp/cache perf report -i perf.data --stdio --sort sym >env.txt 2>&1
check "PERF_BUILDID_DIR=DIR perf report does not (perf $(perf --version | cut -d' ' -f3) ignores it)" \
	sh -c "grep -q '%' env.txt && ! grep -q mmap3_docs_fn env.txt"

tap_done
