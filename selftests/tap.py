#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Collect the kselftest TAP printed by the test init into result rows.

Prints one tab-separated row per kselftest program: kernel, suite,
passed, failed, skipped, note. The counts are those of the program's own
subtests; a program that printed none counts as one test. A missing
result (a crash or a timeout of the whole boot) is a failure.
"""

import argparse
import re

PLAN = re.compile(r'^1\.\.(\d+)')
RESULT = re.compile(r'^(not )?ok \d+ selftests: (\S+): (\S+)(.*)$')
SUBTEST = re.compile(r'^# (not )?ok \d+\b.*?(# SKIP.*)?$')
BAIL_OUT = re.compile(r'^Bail out!(.*)$')


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--kernel', required=True, help='label of the kernel')
    parser.add_argument('tap', help='TAP file written by the test init')
    args = parser.parse_args()

    planned = None
    seen = 0
    counts = [0, 0, 0]
    try:
        with open(args.tap, errors='replace') as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        lines = []

    for line in lines:
        m = BAIL_OUT.match(line)
        if m:
            print(f'{args.kernel}\tkselftest\t0\t1\t0\tbail out:{m.group(1)}')
            continue
        m = PLAN.match(line)
        if m and planned is None:
            planned = int(m.group(1))
            continue
        m = SUBTEST.match(line)
        if m:
            counts[2 if m.group(2) else 1 if m.group(1) else 0] += 1
            continue
        m = RESULT.match(line)
        if not m:
            continue
        seen += 1
        failed, collection, name, directive = m.groups()
        note = directive.strip().lstrip('# ')
        if not sum(counts):
            counts[2 if 'SKIP' in directive else 1 if failed else 0] = 1
        elif failed and not counts[1]:
            counts[1] = 1
        print(f'{args.kernel}\tkselftest {collection}:{name}\t'
              f'{counts[0]}\t{counts[1]}\t{counts[2]}\t{note}')
        counts = [0, 0, 0]

    if not lines:
        problem = 'no TAP output; see the console log'
    elif planned is None:
        problem = 'no TAP plan'
    elif planned == 0:
        problem = 'no kselftest ran'
    elif seen < planned:
        problem = f'{planned - seen} of {planned} results missing'
    else:
        return
    print(f'{args.kernel}\tkselftest\t0\t1\t0\t{problem}')


if __name__ == '__main__':
    main()
