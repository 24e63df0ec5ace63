#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/vm/profile's report: instructions per iteration of a loop (the
hot loop's mmap + munmap, or a dlopen + dlclose), function by function, from the block counts of four boots (no module and
a session, each with OPS and 3 x OPS iterations).

    profile_report.py [--top N] [--loop hot|dlopen] --ops OPS KERNEL DIR

DIR holds CFG.N.blocks ("VADDR INSNS COUNT" per translated block, from
bench/vm/tbcount.c) and CFG.N.log (the guest's output: its KSYM lines,
/proc/kallsyms's text symbols).  Each boot's blocks are named by its own
symbols; user-space addresses are one line, "user space" (every process:
the loop, mmap3 record, the shell)."""

import argparse
import bisect
import collections
import os
import re
import sys

KSYM = re.compile(r'^KSYM ([0-9a-f]+) [tTwW] (\S+)(?:\s+\[(\S+)\])?')
KMOD = re.compile(r'^KMOD (\S+) (\d+) .* 0x([0-9a-f]+)')
OUTSIDE = '(no symbol: a trampoline, or other code made at run time)'
WROTE = re.compile(r'mmap3: wrote [^:]*: (\d+) mappings')
USER = 'user space'


def fail(msg):
    sys.exit('profile_report: ' + msg)


def symbols(log):
    syms = []
    for line in open(log, errors='replace'):
        m = KMOD.match(line)
        if m:
            # A module's end: what lies past it (an ftrace trampoline
            # allocated after it) is none of its functions.
            syms.append((int(m.group(3), 16) + int(m.group(2)), OUTSIDE))
            continue
        m = KSYM.match(line)
        if m:
            name = m.group(2)
            if name.startswith('__pfx_'):
                continue        # the padding before a function, never run
            if m.group(3):
                name += ' [%s]' % m.group(3)
            syms.append((int(m.group(1), 16), name))
    if not syms:
        fail('%s: no KSYM lines (the guest did not finish?)' % log)
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def mappings(log):
    for line in open(log, errors='replace'):
        m = WROTE.search(line)
        if m:
            return int(m.group(1))
    return None


def by_function(blocks, log):
    addrs, names = symbols(log)
    counts = collections.Counter()
    for line in open(blocks):
        try:
            vaddr, insns, runs = line.split()
            vaddr = int(vaddr, 16)
            n = int(insns) * int(runs)
        except ValueError:
            fail('%s: "%s", expected "VADDR INSNS COUNT"' % (blocks, line.strip()))
        if vaddr < 1 << 47:
            counts[USER] += n
            continue
        i = bisect.bisect_right(addrs, vaddr) - 1
        counts[names[i] if i >= 0 else '(below the first symbol)'] += n
    return counts


def iterations(ops, loop):
    """How many times m3bench hot OPS maps: OPS rounded up to its chunks
    of 250, and a tenth more before them to warm up; m3bench workload
    dlopen OPS opens OPS times."""
    if loop == 'dlopen':
        return ops
    n = (ops + 249) // 250 * 250
    return n + n // 10


LOOPS = {
    'hot': 'the hot loop (one mmap + munmap of an executable)',
    'dlopen': 'the dlopen loop (one dlopen + dlclose of a small library)',
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--top', type=int, default=40)
    ap.add_argument('--ops', type=int, required=True)
    ap.add_argument('--loop', choices=sorted(LOOPS), default='hot')
    ap.add_argument('kernel')
    ap.add_argument('dir')
    a = ap.parse_args()
    n1, n3 = iterations(a.ops, a.loop), iterations(3 * a.ops, a.loop)
    per = {}
    for cfg in ('nomod', 'session'):
        c1 = by_function(os.path.join(a.dir, '%s.%d.blocks' % (cfg, a.ops)),
                         os.path.join(a.dir, '%s.%d.log' % (cfg, a.ops)))
        c3 = by_function(os.path.join(a.dir, '%s.%d.blocks' % (cfg, 3 * a.ops)),
                         os.path.join(a.dir, '%s.%d.log' % (cfg, 3 * a.ops)))
        per[cfg] = {k: (c3[k] - c1[k]) / (n3 - n1) for k in set(c1) | set(c3)}
    added = {k: per['session'].get(k, 0) - per['nomod'].get(k, 0)
             for k in set(per['session']) | set(per['nomod'])}
    m1 = mappings(os.path.join(a.dir, 'session.%d.log' % a.ops))
    m3 = mappings(os.path.join(a.dir, 'session.%d.log' % (3 * a.ops)))

    def total(d, pick=lambda k: True):
        return sum(v for k, v in d.items() if pick(k))

    own = lambda k: k.endswith('[mmap3]')
    kernel = lambda k: k != USER and not own(k)
    print('Instructions per iteration of %s on %s, counted block by block:'
          ' %d and %d iterations, per iteration' % (LOOPS[a.loop], a.kernel, n1, n3))
    if m1 is not None and m3 is not None:
        print('The session wrote %.3f mapping records per iteration.' % ((m3 - m1) / (n3 - n1)))
    print()
    print('| | no module | session | added |')
    print('|---|---:|---:|---:|')
    for label, pick in (('all', lambda k: True), ("the module's own code", own),
                        ('the rest of the kernel', kernel), (USER, lambda k: k == USER)):
        print('| %s | %.0f | %.0f | %+.0f |' % (label, total(per['nomod'], pick),
                                             total(per['session'], pick), total(added, pick)))
    print()
    print('The %d functions that change most (a boot-time loop, such as a clock'
          ' calibration run twice in one boot, shows as a few tens either way):' % a.top)
    print()
    print('| function | no module | session | added |')
    print('|---|---:|---:|---:|')
    for k, v in sorted(added.items(), key=lambda kv: -abs(kv[1]))[:a.top]:
        print('| %s | %.1f | %.1f | %+.1f |' % (k, per['nomod'].get(k, 0),
                                             per['session'].get(k, 0), v))


if __name__ == '__main__':
    main()
