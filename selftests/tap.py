#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Collect the TAP of run_kselftest.sh into result rows.

Prints tab-separated rows: kernel, suite, passed, failed, skipped, note.
One row per kselftest program counts its own subtests that passed or
failed (a program that printed none counts as one test), and each skip,
of a program or of one of its subtests, has a row of its own with its
reason. A missing result (a crash or a timeout of the whole boot) is a
failure.

With --expect, every test listed there for this kernel label and in a
collection or program that --filter selected must pass: one that failed, skipped or
did not run adds a failing row that names it. A test listed for the label
KERNEL:xfail must instead report XFAIL, a known bug of that kernel that it
showed (each XFAIL has a row with its reason).

Why not kunit.py parse: run_kselftest.sh prints a program's own results
"# "-prefixed, which KTAP (and so kunit.py parse) reads as diagnostic
lines, not as subtests: it reports the programs alone, without their
tests or the reasons of their skips. The kselftest helpers only write
TAP (ktap_helpers.sh, ksft.py); none reads it.
"""

import argparse
import re

PLAN = re.compile(r'^1\.\.(\d+)(?:\s*#\s*SKIP\s*(.*))?')
RESULT = re.compile(r'^(not )?ok \d+ selftests: (\S+): (\S+)(.*)$')
SUBTEST = re.compile(r'^# (not )?ok \d+ (.*?)(?: # (SKIP|TODO|XFAIL|XPASS)\b ?(.*))?$')
SKIP_REASON = re.compile(r'^# .*\bSKIP\b\W*(.*)$')
BAIL_OUT = re.compile(r'^Bail out!(.*)$')


def read_expected(path, label):
    """The tests required of this label, and what each must come to:
    {"coll:prog": [(subtest or None, "pass" or "xfail")]}."""
    required = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            test, _, labels = line.partition('\t')
            labels = labels.split()
            if label in labels and f'{label}:xfail' in labels:
                raise SystemExit(f'{path}: {test}: both {label} and {label}:xfail')
            if label in labels:
                want = 'pass'
            elif f'{label}:xfail' in labels:
                want = 'xfail'
            else:
                continue
            program, _, subtest = test.partition(' ')
            required.setdefault(program, []).append((subtest or None, want))
    return required


def selected(filt, program):
    """Whether kselftest.filter @filt (see init.sh) ran @program,
    COLLECTION:PROGRAM."""
    collection = program.split(':')[0]
    if not filt:
        return True
    if filt == 'none':
        return False
    if filt.startswith('-') and ':' in filt:
        return program not in filt[1:].split(',')
    if filt.startswith('-'):
        return collection != filt[1:]
    return filt == collection or program in filt.split(',')


def row(kernel, suite, passed, failed, skipped, note=''):
    print(f'{kernel}\t{suite}\t{passed}\t{failed}\t{skipped}\t{note}')


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--kernel', required=True, help='label of the kernel')
    parser.add_argument('--expect', help='tests that must pass (see the file)')
    parser.add_argument('--filter', default='',
                        help='the boot\'s kselftest.filter: which collections or programs ran')
    parser.add_argument('tap', help='TAP file written by the test init')
    args = parser.parse_args()
    k = args.kernel

    try:
        with open(args.tap, errors='replace') as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        lines = []

    planned = None
    plan_skip = None
    seen = 0
    # What each program and subtest came to: "pass", "fail" or "skip: why".
    outcome = {}
    subtests = []   # (name, outcome) of the program running now
    output = []     # its "# " lines
    for line in lines:
        m = BAIL_OUT.match(line)
        if m:
            row(k, 'kselftest', 0, 1, 0, f'bail out:{m.group(1)}')
            continue
        m = PLAN.match(line)
        if m and planned is None:
            planned = int(m.group(1))
            plan_skip = m.group(2)
            continue
        m = SUBTEST.match(line)
        if m:
            failed, name, directive, why = m.groups()
            state = ('fail' if failed else
                     'skip: ' + why.strip() if directive == 'SKIP' else
                     'xfail: ' + why.strip() if directive == 'XFAIL' else 'pass')
            subtests.append((name.strip(), state))
            continue
        if line.startswith('#'):
            output.append(line)
            continue
        m = RESULT.match(line)
        if not m:
            continue
        seen += 1
        failed, collection, name, directive = m.groups()
        program = f'{collection}:{name}'
        note = directive.strip().lstrip('# ')
        passed = sum(s == 'pass' or s.startswith('xfail') for _, s in subtests)
        nfailed = sum(s == 'fail' for _, s in subtests)
        if 'SKIP' in directive and not failed:
            why = next((SKIP_REASON.match(o).group(1) for o in reversed(output)
                        if SKIP_REASON.match(o)), '')
            outcome[program] = 'skip: ' + (why or 'the program exited with KSFT_SKIP')
            row(k, f'kselftest {program}', 0, 0, 1, outcome[program][6:])
        else:
            if failed and not nfailed:
                nfailed = 1
            if not subtests and not failed:
                passed = 1
            outcome[program] = 'fail' if failed else 'pass'
            if passed or nfailed or not subtests:
                row(k, f'kselftest {program}', passed, nfailed, 0, note)
        for sub, state in subtests:
            key = f'{program} {sub}'
            # A subtest that runs more than once keeps its worst result.
            if outcome.get(key, 'pass') == 'pass' or state == 'fail':
                outcome[key] = state
            if state.startswith('skip'):
                row(k, f'kselftest {program}: {sub}', 0, 0, 1, state[6:])
            elif state.startswith('xfail'):
                row(k, f'kselftest {program}: {sub}', 0, 0, 0, 'XFAIL ' + state[7:])
        subtests, output = [], []

    if not lines:
        row(k, 'kselftest', 0, 1, 0, 'no TAP output; see the console log')
    elif planned is None:
        row(k, 'kselftest', 0, 1, 0, 'no TAP plan')
    elif planned == 0 and plan_skip is not None:
        row(k, 'kselftest', 0, 0, 1, plan_skip)
    elif planned == 0:
        row(k, 'kselftest', 0, 1, 0, 'no kselftest ran')
    elif seen < planned:
        row(k, 'kselftest', 0, 1, 0, f'{planned - seen} of {planned} results missing')

    if not args.expect:
        return
    for program, subs in read_expected(args.expect, k).items():
        if not selected(args.filter, program):
            continue
        for sub, want in subs:
            key = f'{program} {sub}' if sub else program
            state = outcome.get(key, 'did not run')
            if state.split(':')[0] != want:
                row(k, f'required {program}' + (f': {sub}' if sub else ''),
                    0, 1, 0, state if want == 'pass' else
                    f'{state}, not the known bug it must show (XFAIL)')


if __name__ == '__main__':
    main()
