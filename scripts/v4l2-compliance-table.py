#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the v4l2-compliance runs of two kernels as a markdown table.

Reads the logs of scripts/v4l2-compliance-guest.sh (runs between
"### RUN LABEL: ARGS" and "### END LABEL STATUS") of the base and the
series. Prints, per run, both kernels' totals, succeeded, failed and
warnings; then every test whose result differs, and the tests that fail
on both. Exits 1 if a run or a test differs or a run did not finish.
"""

import argparse
import re
import sys

RUN = re.compile(r'^### RUN (.*?): (.*)$')
END = re.compile(r'^### END (.*) (\d+)$')
TOTAL = re.compile(r'^Total for .*: (\d+), Succeeded: (\d+), Failed: (\d+), Warnings: (\d+)')
# Progress output of the streaming tests shares the line with the result.
TEST = re.compile(r'\ttest ([^\t]*): (OK \(Not Supported\)|OK|FAIL)\s*$')
REASON = re.compile(r'^\t+(fail|warn): (.*)$')


class Run:
    def __init__(self, args):
        self.args = args
        self.totals = None
        self.finished = False
        self.tests = {}      # name, n-th of that name -> result
        self.reasons = {}    # same key -> the fail: lines before it
        self.warnings = []


def parse(path):
    runs = {}
    run = None
    pending = []
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\r\n')
            if m := RUN.match(line):
                run = runs.setdefault(m.group(1), Run(m.group(2)))
                pending = []
            elif run is None:
                continue
            elif m := END.match(line):
                run.finished = True
                run = None
            elif m := TOTAL.match(line):
                run.totals = tuple(int(g) for g in m.groups())
            elif m := REASON.match(line):
                if m.group(1) == 'warn':
                    run.warnings.append(m.group(2))
                else:
                    pending.append(m.group(2))
            elif m := TEST.search(line):
                name = m.group(1)
                n = sum(1 for k in run.tests if k[0] == name)
                run.tests[(name, n)] = m.group(2)
                run.reasons[(name, n)] = pending
                pending = []
    return runs


def counts(run):
    if run is None:
        return 'missing'
    if not run.finished or run.totals is None:
        return 'did not finish'
    return ' / '.join(str(n) for n in run.totals)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('base', help='guest.log of the base')
    parser.add_argument('series', help='guest.log of the series')
    args = parser.parse_args()

    base, series = parse(args.base), parse(args.series)
    labels = list(base) + [k for k in series if k not in base]
    differs = False
    print('# v4l2-compliance, base vs series\n')
    print('Totals / succeeded / failed / warnings of each run.\n')
    print('| node | option | base | series | same |')
    print('| --- | --- | --- | --- | --- |')
    diffs = []
    for label in labels:
        b, s = base.get(label), series.get(label)
        node, _, option = label.partition(' -')
        same = (b is not None and s is not None
                and b.finished and s.finished
                and b.totals is not None and s.totals is not None
                and b.totals == s.totals and b.tests == s.tests)
        differs |= not same
        print(f'| {node} | -{option} | {counts(b)} | {counts(s)} | '
              f'{"yes" if same else "**no**"} |')
        for key in sorted(set(b.tests if b else {}) | set(s.tests if s else {})):
            rb = b.tests.get(key, '-') if b else '-'
            rs = s.tests.get(key, '-') if s else '-'
            if rb != rs:
                diffs.append((label, key[0], rb, rs))

    print('\n## Tests whose result differs\n')
    if diffs:
        print('| run | test | base | series |')
        print('| --- | --- | --- | --- |')
        for label, test, rb, rs in diffs:
            print(f'| {label} | {test} | {rb} | {rs} |')
    else:
        print('None.')

    print('\n## Tests that fail on the base, and why\n')
    print('The series fails the same ones unless listed above.\n')
    for label, run in base.items():
        for key, result in run.tests.items():
            if result == 'FAIL':
                why = '; '.join(run.reasons[key]) or '(no reason printed)'
                print(f'- {label}: {key[0]}: {why}')
        for warning in run.warnings:
            print(f'- {label}: warning: {warning}')

    return 1 if differs else 0


if __name__ == '__main__':
    sys.exit(main())
