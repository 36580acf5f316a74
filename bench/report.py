#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The benchmark's results, base against series.

    report.py --base TAP --series TAP --out DIR
    report.py --cputime-only --base TAP... --series TAP... --out DIR

Reads the "csv," lines that the dmabuf-chain kselftests chain_bench and
v4l2_chain (S3, its pool tests) print in the kselftest TAP of each kernel
and writes to DIR:

  results.csv      every row of both kernels, with the ratio to the
                   physical minimum and to v7.3 (the base's unflagged row)
  results.md       the headline and, per scenario, the 8 MiB system-heap
                   rows against N (S3: its 921,600-byte CMA buffers)
  headline.md      the headline table alone, which make and make bench print
  maintenance.svg  bytes cleaned + invalidated per frame against N, one
                   panel per scenario, drawn by gnuplot (and .png, to look at)
  cputime.csv      chain_bench's "cputime," lines: the CPU time of what
                   importers without flags do, base against series, with
                   their ratio; results.md tables them

and checks what the series promises, on every row of every heap and size:
a device-only row is at the minimum of the ownership rule (ratio 1.00);
an unflagged row of the series, in a chain, beside another's chain or in
none, costs what the base's does, in bytes, sync calls and maps; a
device-only row beside another's chain costs what the series' device-only
row without a chain does (a chain changes nothing for importers that are
not its members); and that every base row costs what v7.3's rule, as the program tallied it,
requires. Exits non-zero, naming the rows, when one does not, or when a
row is missing or appears twice. The rows' own tests (TAP ok/not ok) are
selftests/tap.py's to check: they hold device-only-no-chain to the rule
outside chains, which no column shows.

Bytes and counts are the result. The program's time per frame is, under
QEMU's TCG and with the observer's probes armed, instruction work and not
a cache cost: results.csv calls it tcg_work_us, and no table shows it.
The CPU times are instruction work too, timed without probes: what the
series adds to the exporter's work, which the goal holds within
CPU_TIME_GOAL of v7.3's. They are reported, not checked: two boots under
TCG on a shared machine differ by more than that goal, and on a page the
series' fixed cost per call exceeds it (Documentation/benchmarks.md).

With --cputime-only (make cputime), the TAPs hold only "cputime," lines,
of one or more boots of each kernel: each row is the fastest of all their
runs, and DIR gets cputime.csv and cputime.md, which is also printed.
--icount says that the boots ran under QEMU's -icount, where the times are
instruction counts.
"""

import argparse
import csv
from collections import Counter
import os
import re
import subprocess
import sys

KEY = ("scenario", "heap", "size", "n")
SCENARIOS = {
    "S1-devices": "S1 per-job mapping, devices only",
    "S1-cpu": "S1 per-job mapping, CPU fill + N hops + CPU read",
    "S2-every": "S2 persistent mapping, CPU every frame",
    "S2-every4": "S2 persistent mapping, CPU every 4th frame",
    "S2-never": "S2 persistent mapping, CPU never",
    "S3": "S3 rotating pool, N buffers through vivid's output queue (vb2)",
    "S4": "S4 CPU access with N attachments mapped",
    "S5": "S5 mixed: S1-cpu, second device coherent",
}
# The tables and the plot show the 8 MiB system-heap rows of a scenario
# that has them (all but S3); the headline each scenario at N = 4.
PLOT_SIZE, PLOT_HEAP = 8 << 20, "system"
HEADLINE_N = 4
MIB = float(1 << 20)
# The rows chain_bench prints for each of the kernel's own heaps (its
# DEFAULT_HEAPS), and v4l2_chain's one of S3.
BENCH_HEAPS = ("default_cma_region", "reserved", "system")
BENCH_SIZES = (1 << 20, 8 << 20)
BENCH_N = range(1, 9)
S3_KEY = ("S3", "default_cma_region", 921600, 4)
# The series' variants of chain_bench. Each but "device-only" (held to the
# minimum) and "device-only-no-chain" (a reference) must equal, in bytes,
# sync calls and maps, the row of the same key named here: the base's
# unflagged row ("base"), or a series row of that variant.
SERIES_VARIANTS = ("unflagged", "unflagged-in-chain", "device-only",
                   "unflagged-beside-chain", "device-only-beside-chain",
                   "device-only-no-chain")
SAME_AS = {
    "unflagged": "base",
    "unflagged-in-chain": "base",
    "unflagged-beside-chain": "base",
    "device-only-beside-chain": "device-only-no-chain",
}


CPU_TIME_KEY = ("op", "heap", "size", "n", "variant")
CPU_TIME_OPS = {
    "map": "map and unmap one attachment, N - 1 others mapped",
    "cpu": "begin and end a CPU access, N mapped",
    "chain": "begin and end a chain that names no importer, N mapped",
}
CPU_TIME_GOAL = 1.05
# The series' variants timed; each is compared with the base's unflagged.
CPU_TIME_VARIANTS = ("unflagged", "unflagged-in-chain", "unflagged-beside-chain")


def tagged_fields(path, tag):
    """The comma-separated fields after "TAG," of each such line of @path."""
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(rf"\b{tag},(.*)$", line.rstrip("\n"))
            if m:
                yield m.group(1).split(",")


def read_cpu_times(paths, kernel, required=False):
    """{(kernel, op, heap, size, n, variant): (fastest, slowest) ns} of the
    "cputime," lines of the TAPs @paths, over all their runs; with
    @required, each TAP must have some."""
    times = {}
    for path in paths:
        lines = list(tagged_fields(path, "cputime"))
        if not lines and required:
            sys.exit(f"{path}: no cputime lines")
        for fields in lines:
            if len(fields) != len(CPU_TIME_KEY) + 2:
                sys.exit(f"{path}: malformed cputime line: {','.join(fields)}")
            op, heap, size, n, variant, ns, slowest = fields
            key = (kernel, op, heap, int(size), int(n), variant)
            fastest, slowest = float(ns), float(slowest)
            if key in times:
                fastest = min(fastest, times[key][0])
                slowest = max(slowest, times[key][1])
            times[key] = (fastest, slowest)
    return times


def size_name(size, page):
    if size == page:
        return "one page"
    return f"{size >> 20} MiB" if size % (1 << 20) == 0 else f"{size >> 10} KiB"


def cpu_time_table(times, boots=1, icount=False):
    """Markdown: per heap, operation and size, the time against N, and the
    ratios; with @icount, the guest's time counted instructions."""
    heaps = sorted({k[2] for k in times})
    ns_ = sorted({k[4] for k in times})
    sizes = sorted({k[3] for k in times})
    # chain_bench times a page first, and only a page on every N.
    page = sizes[0] if sizes else 0
    unit = "Instructions" if icount else "Nanoseconds"
    ratios = {}
    for (kernel, op, h, z, n, var), v in times.items():
        b = times.get(("base", op, h, z, n, "unflagged"))
        if kernel == "series" and var in CPU_TIME_VARIANTS and b and b[0]:
            ratios.setdefault(z, []).append(v[0] / b[0])
    spread = max((v[1] / v[0] for v in times.values() if v[0]), default=0)
    out = ["## CPU time of importers without flags", "",
           f"{unit} per operation, timed in the kernel by the test engine "
           "(DMA_BUF_TE_IOC_TIME; chains in user space), the fastest of 5 "
           "runs" + (f" in each of {boots} boots of each kernel" if boots > 1
                     else "") + ", without probes; " +
           ("QEMU's -icount, where the guest's clock counts the "
            "instructions it executes, one a nanosecond: not cache "
            "costs." if icount else
            "QEMU's TCG, so instruction work.") +
           " Ratios are series / base.", ""]
    if not ratios:
        return out + ["No cputime lines in both kernels' TAP.", ""]
    out += ["Largest ratio, per buffer size (goal: at most "
            f"{CPU_TIME_GOAL:.2f}): " +
            ", ".join(f"{size_name(z, page)} {max(r):.3f}"
                      for z, r in sorted(ratios.items())) +
            f". Largest spread of a row's runs, slowest / fastest: {spread:.2f}.",
            ""]
    for h in heaps:
        for op, title in CPU_TIME_OPS.items():
            for z in sizes:
                if not any(k[1:4] == (op, h, z) for k in times):
                    continue
                out += [f"### {h} heap, {size_name(z, page)}: {title}", "",
                        "| N | v7.3 | series, unflagged | in a chain | beside a chain |",
                        "|---:|---:|---:|---:|---:|"]
                for n in ns_:
                    if not any(k[1:5] == (op, h, z, n) for k in times):
                        continue
                    b = times.get(("base", op, h, z, n, "unflagged"), (None,))[0]
                    cells = []
                    for var in CPU_TIME_VARIANTS:
                        v = times.get(("series", op, h, z, n, var), (None,))[0]
                        cells.append("-" if v is None else
                                     f"{v:.0f}" + (f" ({v / b:.3f})" if b else ""))
                    out.append(f"| {n} | {'-' if b is None else f'{b:.0f}'} | " +
                               " | ".join(cells) + " |")
                out.append("")
    return out


def write_cpu_csv(path, times, icount=False):
    unit = "instructions" if icount else "ns"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel"] + list(CPU_TIME_KEY) +
                   [unit, f"slowest_{unit}", "ratio_to_v7.3"])
        for k, (v, slowest) in sorted(times.items()):
            b = times.get(("base",) + k[1:5] + ("unflagged",), (None,))[0]
            w.writerow(list(k) + [f"{v:.0f}", f"{slowest:.0f}",
                                  f"{v / b:.3f}" if b else ""])


def read_rows(path, kernel):
    """The rows of chain_bench's "csv," lines in kselftest TAP @path."""
    header, rows = None, []
    for fields in tagged_fields(path, "csv"):
        # Each program prints the header before its rows.
        if fields[0] == "scenario":
            if header not in (None, fields):
                sys.exit(f"{path}: two different csv headers")
            header = fields
            continue
        if header is None:
            sys.exit(f"{path}: a csv row before the header")
        if len(fields) != len(header):
            sys.exit(f"{path}: malformed csv row: {','.join(fields)}")
        row = dict(zip(header, fields))
        row["kernel"] = kernel
        for k in ("size", "n", "cleaned", "invalidated", "min_cleaned",
                  "min_invalidated", "v7.3_cleaned", "v7.3_invalidated"):
            row[k] = int(row[k])
        for k in ("syncs", "maps", "frame_us"):
            row[k] = float(row[k])
        rows.append(row)
    if not rows:
        sys.exit(f"{path}: no chain_bench rows: did dmabuf-chain:chain_bench run?")
    return rows


def total(row):
    return row["cleaned"] + row["invalidated"]


def ratio(value, reference):
    if reference == 0:
        return 1.0 if value == 0 else float("inf")
    return value / reference


def fmt_ratio(r):
    return "inf" if r == float("inf") else f"{r:.2f}"


def expected_rows(rows):
    """(kernel, variant, key) of every row both runs must have printed."""
    want = {("base", "unflagged", S3_KEY), ("series", "device-only", S3_KEY)}
    for s in SCENARIOS:
        if s == "S3":
            continue
        for key in ((s, h, z, n) for h in BENCH_HEAPS for z in BENCH_SIZES
                    for n in BENCH_N):
            want |= {("base", "unflagged", key)}
            want |= {("series", v, key) for v in SERIES_VARIANTS}
    return want


def check(rows, base):
    """What the series must show; a list of failures."""
    failures = []
    seen = Counter((r["kernel"], r["variant"], tuple(r[k] for k in KEY)) for r in rows)
    for row, count in sorted(seen.items()):
        if count > 1:
            failures.append(f"{row}: printed {count} times")
    for row in sorted(expected_rows(rows) - set(seen)):
        failures.append(f"{row}: missing")
    for r in rows:
        if r["kernel"] == "base" and (r["cleaned"], r["invalidated"]) != \
                (r["v7.3_cleaned"], r["v7.3_invalidated"]):
            failures.append(f"base {r['scenario']} {r['heap']} {r['size']} n={r['n']}: "
                            f"{r['cleaned']} + {r['invalidated']} bytes, v7.3's rule "
                            f"{r['v7.3_cleaned']} + {r['v7.3_invalidated']}")
    series = [r for r in rows if r["kernel"] == "series"]
    by_variant = {(r["variant"], tuple(r[k] for k in KEY)): r for r in series}
    for r in series:
        key = tuple(r[k] for k in KEY)
        name = f"{r['scenario']} {r['heap']} {r['size'] >> 20}MiB n={r['n']} {r['variant']}"
        if r["variant"] == "device-only":
            if (r["cleaned"], r["invalidated"]) != (r["min_cleaned"], r["min_invalidated"]):
                failures.append(f"{name}: {r['cleaned']} + {r['invalidated']} bytes, "
                                f"the minimum is {r['min_cleaned']} + {r['min_invalidated']}")
            continue
        same_as = SAME_AS.get(r["variant"])
        if same_as is None:
            continue
        b = base.get(key) if same_as == "base" else by_variant.get((same_as, key))
        label = "v7.3" if same_as == "base" else same_as
        if b is None:
            failures.append(f"{name}: no {label} row")
        elif any(r[k] != b[k] for k in ("cleaned", "invalidated", "syncs", "maps")):
            failures.append(f"{name}: {r['cleaned']} + {r['invalidated']} bytes, "
                            f"{r['syncs']} syncs, {r['maps']} maps; {label}: "
                            f"{b['cleaned']} + {b['invalidated']}, {b['syncs']}, {b['maps']}")
    return failures


def write_csv(path, rows, base):
    cols = ["kernel", "scenario", "heap", "size", "n", "variant", "cleaned",
            "invalidated", "syncs", "maps", "min_cleaned", "min_invalidated",
            "ratio_to_min", "ratio_to_v7.3", "tcg_work_us"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in rows:
            b = base.get(tuple(r[k] for k in KEY))
            w.writerow([r["kernel"], r["scenario"], r["heap"], r["size"], r["n"],
                        r["variant"], r["cleaned"], r["invalidated"],
                        f"{r['syncs']:.2f}", f"{r['maps']:.2f}", r["min_cleaned"],
                        r["min_invalidated"],
                        fmt_ratio(ratio(total(r), r["min_cleaned"] + r["min_invalidated"])),
                        fmt_ratio(ratio(total(r), total(b))) if b else "",
                        f"{r['frame_us']:.0f}"])


def where(rows, scenario):
    """The heap and size a scenario's tables and plot show."""
    for r in rows:
        if (r["scenario"], r["heap"], r["size"]) == (scenario, PLOT_HEAP, PLOT_SIZE):
            return PLOT_HEAP, PLOT_SIZE
    for r in rows:
        if r["scenario"] == scenario:
            return r["heap"], r["size"]
    return PLOT_HEAP, PLOT_SIZE


def ns(rows, scenario):
    return sorted({r["n"] for r in rows if r["scenario"] == scenario})


def lookup(rows, kernel, variant, scenario, heap, size, n):
    for r in rows:
        if (r["kernel"], r["variant"], r["scenario"], r["heap"], r["size"],
                r["n"]) == (kernel, variant, scenario, heap, size, n):
            return r
    return None


def short(x):
    """@x with up to two decimals."""
    return f"{x:.2f}".rstrip("0").rstrip(".")


def mib(row, prefix=""):
    """MiB cleaned + invalidated of @row, or its minimum's with @prefix."""
    if not row:
        return "-"
    return (f"{short(row[prefix + 'cleaned'] / MIB)} + "
            f"{short(row[prefix + 'invalidated'] / MIB)}")


def table(rows, pairs):
    """Markdown rows of (scenario, n) pairs, at where() the scenario is."""
    out = ["| scenario | N | v7.3 | series, unflagged | series, unflagged in a chain | "
           "series, device-only in a chain | "
           "minimum | device-only / minimum | device-only / v7.3 | "
           "sync calls, v7.3 / device-only | maps, v7.3 / device-only |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for scenario, n in pairs:
        heap, size = where(rows, scenario)
        b = lookup(rows, "base", "unflagged", scenario, heap, size, n)
        u = lookup(rows, "series", "unflagged", scenario, heap, size, n)
        uc = lookup(rows, "series", "unflagged-in-chain", scenario, heap, size, n)
        d = lookup(rows, "series", "device-only", scenario, heap, size, n)
        to_min = (fmt_ratio(ratio(total(d), d["min_cleaned"] + d["min_invalidated"]))
                  if d else "-")
        to_base = fmt_ratio(ratio(total(d), total(b))) if b and d else "-"
        syncs = f"{b['syncs']:g} / {d['syncs']:g}" if b and d else "-"
        maps = f"{b['maps']:g} / {d['maps']:g}" if b and d else "-"
        out.append(f"| {scenario} | {n} | {mib(b)} | {mib(u)} | {mib(uc)} | {mib(d)} | "
                   f"{mib(b or u, 'min_')} | {to_min} | {to_base} | {syncs} | {maps} |")
    return out


def headline(rows):
    pairs = [(s, HEADLINE_N) for s in SCENARIOS]
    return ([f"MiB cleaned + MiB invalidated per frame, {PLOT_SIZE >> 20} MiB "
             f"{PLOT_HEAP}-heap buffer, N = {HEADLINE_N} devices; S3: "
             f"{HEADLINE_N} buffers of 921,600 bytes from the CMA heap. "
             "Device-only importers run in a device chain that lasts the run. "
             "Base and series booted in one run (dmabuf-chain:chain_bench, "
             "v4l2_chain):", ""] +
            table(rows, pairs))


def same_ratios_across_heaps(rows):
    """Whether every heap and size has the system heap's 8 MiB ratios."""
    ref = {}
    for r in rows:
        if r["heap"] == PLOT_HEAP and r["size"] == PLOT_SIZE:
            ref[(r["kernel"], r["variant"], r["scenario"], r["n"])] = total(r) / r["size"]
    heaps = sorted({r["heap"] for r in rows})
    ok = all(ref.get((r["kernel"], r["variant"], r["scenario"], r["n"])) ==
             total(r) / r["size"] for r in rows
             if where(rows, r["scenario"]) == (PLOT_HEAP, PLOT_SIZE))
    return ok, heaps


def write_md(path, rows, failures, svg, times):
    ok, heaps = same_ratios_across_heaps(rows)
    lines = ["# chain_bench: base against series", ""] + headline(rows) + [""]
    lines.append(f"Heaps: {', '.join(heaps)}; sizes 1 MiB and 8 MiB; "
                 f"{len(rows)} rows in results.csv. " +
                 ("Every heap and size costs the same in buffer sizes as the "
                  "8 MiB system-heap rows below." if ok else
                  "Heaps or sizes differ in buffer sizes: see results.csv."))
    lines.append("")
    lines.append("Rules checked on every row: " +
                 ("all hold (every row printed once, the base's rows at "
                  "v7.3's rule, the series' device-only rows at the minimum, "
                  "its unflagged rows equal to the base's and its device-only "
                  "rows beside another's chain equal to its device-only rows "
                  "without a chain, in bytes, sync calls and maps)."
                  if not failures else
                  f"{len(failures)} fail:"))
    lines += [f"- {f}" for f in failures]
    lines += ["", f"Plot: {svg}", ""]
    for s, title in SCENARIOS.items():
        heap, size = where(rows, s)
        lines += [f"## {title}", "", f"{heap} heap, {size:,}-byte buffers.", ""]
        lines += table(rows, [(s, n) for n in ns(rows, s)])
        lines.append("")
    lines += cpu_time_table(times)
    with open(path, "w") as f:
        f.write("\n".join(lines))


def plot(out, rows):
    """maintenance.svg and .png through gnuplot; one panel per scenario."""
    series = [("base", "unflagged", "v7.3"),
              ("series", "unflagged", "series, unflagged"),
              ("series", "device-only", "series, device-only (chain)"),
              (None, None, "minimum")]
    dat = os.path.join(out, "maintenance.dat")
    with open(dat, "w") as f:
        for s in SCENARIOS:
            heap, size = where(rows, s)
            f.write(f"# {s}\n")
            for n in range(1, 9):
                cols = [str(n)]
                for kernel, variant, _ in series[:3]:
                    r = lookup(rows, kernel, variant, s, heap, size, n)
                    cols.append(f"{total(r) / MIB:g}" if r else "NaN")
                r = (lookup(rows, "base", "unflagged", s, heap, size, n) or
                     lookup(rows, "series", "device-only", s, heap, size, n))
                cols.append(f"{(r['min_cleaned'] + r['min_invalidated']) / MIB:g}"
                            if r else "NaN")
                f.write(" ".join(cols) + "\n")
            f.write("\n\n")
    # The minimum last, black and dashed, over the device-only line it meets.
    styles = ["lc rgb '#8e44ad' lw 4 pt 7", "lc rgb '#27ae60' lw 2 dt 2 pt 6",
              "lc rgb '#2e86c1' lw 4 pt 5 ps 1.2", "lc rgb 'black' lw 1.5 dt 3 pt 0"]
    script = []
    for term, name in (("svg size 1400,700 dynamic font 'sans,11'", "maintenance.svg"),
                       ("pngcairo size 1400,700 font 'sans,10'", "maintenance.png")):
        script += [f"set terminal {term}", f"set output '{os.path.join(out, name)}'",
                   "set multiplot layout 2,4 title 'MiB cleaned + invalidated per "
                   f"frame, {PLOT_SIZE >> 20} MiB {PLOT_HEAP}-heap buffer "
                   "(kprobes on arch\\_sync\\_dma\\_for\\_*)'",
                   "set xlabel 'N'", "set xrange [0.5:8.5]", "set xtics 1",
                   "set grid", "set key top left font ',8'"]
        for i, s in enumerate(SCENARIOS):
            heap, size = where(rows, s)
            top = max([total(r) / MIB for r in rows if r["scenario"] == s and
                       r["heap"] == heap and r["size"] == size] + [0])
            # Room above the points for the key.
            script.append(f"set yrange [0:{max(top * 1.5, 1):g}]")
            plots = [f"'{dat}' index {i} using 1:{c + 2} with linespoints "
                     f"{styles[c]} title '{label}'"
                     for c, (_, _, label) in enumerate(series)]
            title = s if (heap, size) == (PLOT_HEAP, PLOT_SIZE) else \
                f"{s}: {size:,}-byte {heap} buffers"
            script += [f"set title '{title}' noenhanced", "plot " + ", ".join(plots)]
        script += ["unset multiplot", "set output"]
    try:
        subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"report.py: gnuplot failed: {e}")
    return "maintenance.svg"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base", required=True, nargs="+", metavar="TAP")
    p.add_argument("--series", required=True, nargs="+", metavar="TAP")
    p.add_argument("--out", required=True)
    p.add_argument("--cputime-only", action="store_true",
                   help="only the cputime lines, of one or more boots each")
    p.add_argument("--icount", action="store_true",
                   help="the boots ran under QEMU's -icount: times are "
                   "instructions")
    args = p.parse_args()

    os.makedirs(args.out, exist_ok=True)
    times = {**read_cpu_times(args.base, "base", args.cputime_only),
             **read_cpu_times(args.series, "series", args.cputime_only)}
    if args.cputime_only:
        write_cpu_csv(os.path.join(args.out, "cputime.csv"), times, args.icount)
        table = "\n".join(cpu_time_table(times, min(len(args.base),
                                                     len(args.series)),
                                          args.icount))
        with open(os.path.join(args.out, "cputime.md"), "w") as f:
            f.write(table + "\n")
        print(table)
        return 0
    if len(args.base) != 1 or len(args.series) != 1:
        p.error("one TAP per kernel, unless --cputime-only")

    rows = read_rows(args.base[0], "base") + read_rows(args.series[0], "series")
    base = {tuple(r[k] for k in KEY): r for r in rows
            if r["kernel"] == "base" and r["variant"] == "unflagged"}
    failures = check(rows, base)
    write_csv(os.path.join(args.out, "results.csv"), rows, base)
    svg = plot(args.out, rows)
    write_cpu_csv(os.path.join(args.out, "cputime.csv"), times)
    write_md(os.path.join(args.out, "results.md"), rows, failures, svg, times)
    with open(os.path.join(args.out, "headline.md"), "w") as f:
        f.write("\n".join(headline(rows)) + "\n")
    for f in failures:
        print(f"report.py: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
