#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The one summary table that opens bench/RESULTS.md.

    summary.py ICOUNT_FRAGMENT VM_FRAGMENT

Every target of every kernel, a row each (kernel, what, figure and
verdict, how it was measured), from the two in-VM fragments' own
tables: the deterministic one's "| kernel | target | verdict |" rows
and the wall-clock one's "### Summary" table (a kernel a row, a column
a target), turned a row a target.  A fragment that is missing or has
no such table gives no rows; nothing is computed here.
"""
import sys

ORDER = ["5.10", "6.1", "6.12", "7.x", "6.12-rt"]


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def icount_rows(path):
    """(kernel, target, verdict) of the icount fragment's targets table."""
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return []
    rows, inside = [], False
    for line in lines:
        if line.startswith("| kernel | target | verdict |"):
            inside = True
            continue
        if inside:
            if not line.startswith("|"):
                break
            c = cells(line)
            if len(c) == 3 and not c[0].startswith("---"):
                rows.append(tuple(c))
    return rows


def vm_rows(path):
    """(kernel, target, figure) of the wall-clock fragment's summary table."""
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return []
    rows, head, inside = [], None, False
    for line in lines:
        if line.strip() == "### Summary":
            inside = True
            continue
        if not inside:
            continue
        if line.startswith("| kernel |"):
            head = cells(line)[1:]
            continue
        if head is None:
            continue
        if not line.startswith("|"):
            break
        c = cells(line)
        if c[0].startswith("---"):
            continue
        rows += [(c[0], h, v) for h, v in zip(head, c[1:]) if v and v != "-"]
    return rows


def main(icount, vm):
    rows = [(k, t, v, "instructions (icount)") for k, t, v in icount_rows(icount)]
    rows += [(k, t, v, "wall clock (TCG)") for k, t, v in vm_rows(vm)]
    if not rows:
        return
    kernels = [k for k in ORDER if any(r[0] == k for r in rows)]
    kernels += sorted({r[0] for r in rows} - set(kernels))
    print("## Summary: every target on every kernel\n")
    print("Each row is a figure of the sections below, where it is explained; "
          "instruction counts are deterministic (two boots agree within 1%), "
          "wall-clock ratios under TCG vary by tens of percent from run to run.\n")
    print("| kernel | target or figure | figure and verdict | measured by |")
    print("|---|---|---|---|")
    for k in kernels:
        for r in rows:
            if r[0] == k:
                print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} |")
    print()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
