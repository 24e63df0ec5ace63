#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The markdown fragment of bench/vm/icount, from its guest logs.

    icount_report.py KERNEL=LOG1,LOG2 ...

Each log is one boot under tests/vm/run --icount running bench/vm/guest's
icount bench: "CTX bench=icount-hot|icount-exec config=C round=R" lines,
each followed by m3bench's "RESULT ... mean_ns_per_op=X ..." line, X being
instructions per operation there (one CPU, one nanosecond an instruction).
A configuration's figure in a boot is the mean of its rounds; the two
boots' figures must agree within 1%.
"""
import re
import sys

CONFIGS = [
    ("nomod", "no module"),
    ("loaded", "loaded, no session"),
    ("polled", "session, reader polling every 100 ms"),
    ("session", "session read by `mmap3 record`"),
    ("perf", "`perf record -e dummy -a`"),
    ("perfbid", "`perf record -e dummy -a --buildid-mmap`"),
]
BENCHES = [("icount-hot", "mmap + munmap of an ELF file, `PROT_EXEC`"),
           ("icount-exec", "fork + exec + wait of a small dynamic program")]


def parse(path):
    """{(bench, config): [instructions per op, one per round]}, info, run line."""
    res, ctx, info, run = {}, None, [], ""
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return res, ["(no log)"], ""
    for line in lines:
        if line.startswith("CTX "):
            kv = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
            ctx = (kv.get("bench"), kv.get("config"))
        elif line.startswith("RESULT ") and ctx:
            m = re.search(r"mean_ns_per_op=([0-9.]+)", line)
            if m:
                res.setdefault(ctx, []).append(float(m.group(1)))
        elif line.startswith("INFO kernel=") or line.startswith("INFO kprobe="):
            info.append(line[5:])
        elif line.startswith("RUN "):
            run = line[4:]
    return res, info, run


def mean(v):
    return sum(v) / len(v) if v else None


def fmt(x):
    return "-" if x is None else f"{x:,.0f}"


def pct(a, b):
    return None if a is None or b in (None, 0) else 100.0 * (a - b) / b


def fpct(x):
    return "-" if x is None else f"{x:+.2f}%"


def main(args):
    out = []
    out.append("## In-VM benchmark: instructions per operation (icount)\n")
    out.append("Deterministic figures (`bench/vm/icount`): each kernel boots twice under "
               "`tests/vm/run --icount` (one CPU, single-threaded TCG, `-icount "
               "shift=0,sleep=off`: the guest's clock advances one nanosecond per "
               "instruction), so `clock_gettime()` around a loop counts every "
               "instruction the CPU ran meanwhile: the loop, the kernel, the module's "
               "hook and worker, and the session's reader. Configurations run in "
               "alternating order, each figure the mean of its rounds "
               "(`mean_ns_per_op` of `m3bench hot` and `exec`). The hook, worker and "
               "reader are not counted apart: with one CPU their sum is what a mapping "
               "costs the machine. Added: against no module, in the same boot.\n")
    verdicts = []
    for arg in args:
        kernel, logs = arg.split("=", 1)
        boots = [parse(p) for p in logs.split(",")]
        out.append(f"### {kernel}\n")
        for i, (_, info, run) in enumerate(boots, 1):
            out.append(f"Boot {i}: {'; '.join(info) or '(no info)'}; {run or 'did not finish'}\n")
        agree_worst = polled_worst = 0.0
        figures = {}
        for bench, what in BENCHES:
            out.append(f"{what}:\n")
            out.append("| configuration | boot 1 | boot 2 | boot 2 vs 1 | added (boot 1) | added (boot 2) |")
            out.append("|---|---|---|---|---|---|")
            base = [mean(b[0].get((bench, "nomod"), [])) for b in boots]
            for cfg, name in CONFIGS:
                if bench == "icount-exec" and cfg == "polled":
                    continue
                m = [mean(b[0].get((bench, cfg), [])) for b in boots]
                added = [None if x is None or y is None else x - y for x, y in zip(m, base)]
                d = pct(m[1], m[0]) if len(m) > 1 else None
                # The polling reader wakes on a 100 ms timer, which lands
                # at another point of the loop in each boot: apart.
                if d is not None and cfg == "polled":
                    polled_worst = max(polled_worst, abs(d))
                elif d is not None:
                    agree_worst = max(agree_worst, abs(d))
                figures[(bench, cfg)] = added
                out.append(f"| {name} | {fmt(m[0])} | {fmt(m[1] if len(m) > 1 else None)} | "
                           f"{fpct(d)} | {fmt(added[0])} | "
                           f"{fmt(added[1] if len(added) > 1 else None)} |")
            out.append("")

        def worst(key):
            v = [x for x in figures.get(key, []) if x is not None]
            return max(v) if v else None

        loaded = worst(("icount-hot", "loaded"))
        sess = worst(("icount-hot", "session"))
        perf = worst(("icount-hot", "perf"))
        pbid = worst(("icount-hot", "perfbid"))

        def verdict(ok, text):
            return ("met" if ok else "missed") + f": {text}"
        if loaded is not None:
            verdicts.append((kernel, "loaded, no session: 0 instructions added",
                             verdict(loaded <= 0, f"{loaded:,.0f} added per mapping")))
        if sess is not None and perf is not None:
            verdicts.append((kernel, "session at most what `perf record -e dummy -a` adds",
                             verdict(sess <= perf, f"{sess:,.0f} vs {perf:,.0f}")))
        if sess is not None and pbid is not None:
            verdicts.append((kernel, "session at most half of what `--buildid-mmap` adds",
                             verdict(sess <= pbid / 2, f"{sess:,.0f} vs {pbid / 2:,.0f}")))
        verdicts.append((kernel, "two boots agree within 1%",
                         verdict(agree_worst <= 1.0, f"worst {agree_worst:.2f}% (the polling "
                                 f"reader apart: {polled_worst:.2f}%, its 100 ms timer lands "
                                 "elsewhere in each boot)")))
    summary = ["| kernel | target | verdict |", "|---|---|---|"]
    summary += [f"| {k} | {t} | {v} |" for k, t, v in verdicts]
    print("\n".join(out[:2] + ["Targets (worst of the two boots):\n"] + summary + [""] + out[2:]))


if __name__ == "__main__":
    main(sys.argv[1:])
