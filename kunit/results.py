#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse the KUnit results of a boot log into result rows.

The KUnit suites built into the test kernel run during boot, before init.
This hands the boot log up to the start of init to the kernel's own
parser (tools/testing/kunit/kunit.py parse) and prints one tab-separated
row per suite: kernel, suite, passed, failed, skipped, note.

With --expect (kunit/expected-results), a suite listed there for this
run's label that did not run is a failure, so that a suite lost from the
configuration cannot pass unseen; and a case listed there that did not
pass (it failed, skipped or did not run) adds a failing row
"required TOOL SUITE CASE", so that a case that skips cannot pass unseen.
A case with parameters passes when every parameter passed; a line
"SUITE CASE PARAM" requires one parameter only, for cases some of whose
parameters may skip on that run.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

INIT_STARTS = 'Run /init as init process'


def boot_log_before_init(console):
    lines = []
    try:
        with open(console, errors='replace') as f:
            for line in f:
                if INIT_STARTS in line:
                    break
                lines.append(line)
    except FileNotFoundError:
        pass
    return ''.join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--kernel', required=True, help='label of the kernel')
    parser.add_argument('--src', required=True, help='kernel source tree')
    parser.add_argument('--log', required=True,
                        help="where to write kunit.py's report")
    parser.add_argument('--label',
                        help='label of the run in --expect (default: --kernel)')
    parser.add_argument('--tool', default='kunit',
                        help='first word of the rows\' names (default: kunit)')
    parser.add_argument('--expect',
                        help='file of "SUITE[ CASE]<TAB>LABEL..." lines: suites '
                             'that must run and cases that must pass')
    parser.add_argument('console', help='serial console log of the boot')
    args = parser.parse_args()

    kunit_py = os.path.join(args.src, 'tools/testing/kunit/kunit.py')
    with tempfile.TemporaryDirectory() as tmp:
        boot = os.path.join(tmp, 'boot.log')
        result = os.path.join(tmp, 'kunit.json')
        before_init = boot_log_before_init(args.console)
        with open(boot, 'w') as f:
            f.write(before_init)
        with open(args.log, 'w') as log:
            subprocess.run([sys.executable, kunit_py, 'parse',
                            '--json=' + result, boot],
                           stdout=log, stderr=subprocess.STDOUT, check=False)
        root = {}
        if os.path.exists(result):
            with open(result) as f:
                root = json.load(f)

    # Suites with test cases are sub-groups; a suite that failed before
    # running any case (suite_init) is a bare test case of the root.
    rows = [(suite['name'], suite['misc']['passed'],
             suite['misc']['failed'] + suite['misc']['crashed'] +
             suite['misc']['errors'], suite['misc']['skipped'])
            for suite in root.get('sub_groups', [])]
    rows += [(case['name'], int(case['status'] == 'PASS'),
              int(case['status'] not in ('PASS', 'SKIP')),
              int(case['status'] == 'SKIP'))
             for case in root.get('test_cases', [])]
    tool, kernel = args.tool, args.kernel
    if not rows:
        print(f'{kernel}\t{tool}\t0\t1\t0\tno KUnit results in the log')
    for name, passed, failed, skipped in rows:
        print(f'{kernel}\t{tool} {name}\t{passed}\t{failed}\t{skipped}\t')
    ran = {name for name, *_ in rows}
    statuses = case_statuses(root)
    for test in expected(args.expect, args.label or kernel):
        if len(test) == 1 and test[0] not in ran:
            print(f'{kernel}\t{tool} {test[0]}\t0\t1\t0\tsuite did not run')
        elif len(test) > 1 and statuses.get(test) != 'PASS':
            status = statuses.get(test, 'did not run')
            detail = failure_detail(before_init, test[-1])
            print(f'{kernel}\trequired {tool} {" ".join(test)}\t0\t1\t0\t'
                  f'{status}{": " + detail if detail else ""}')


def case_statuses(root):
    """{(suite, case[, param]): PASS, SKIP or FAIL} of kunit.py's JSON."""
    statuses = {}
    for suite in root.get('sub_groups', []):
        for case in suite.get('test_cases', []):
            statuses[(suite['name'], case['name'])] = case['status']
        # A case with parameters is a group of its own.
        for case in suite.get('sub_groups', []):
            misc = case['misc']
            if misc['failed'] + misc['crashed'] + misc['errors']:
                status = 'FAIL'
            elif misc['skipped'] or not misc['passed']:
                status = 'SKIP'
            else:
                status = 'PASS'
            statuses[(suite['name'], case['name'])] = status
            for param in case.get('test_cases', []):
                statuses[(suite['name'], case['name'], param['name'])] = \
                    param['status']
    return statuses


def failure_detail(log, case, limit=200):
    """What KUnit printed about @case's failure, on one line.

    A CI run shows the rows only, so a failing required case carries the
    lines KUnit printed for it: "# CASE: EXPECTATION FAILED at ..." and
    the indented lines after it ("Expected ret == 0, but ret == -4").
    """
    detail, inside = [], False
    for line in log.splitlines():
        text = line.split('] ', 1)[-1].strip()
        if text.startswith(f'# {case}: '):
            inside = True
            detail.append(text[len(case) + 4:])
        elif inside and text and not text.startswith(('ok ', 'not ok ', '#')):
            detail.append(text)
        else:
            inside = False
    return ' '.join(detail).replace('\t', ' ')[:limit]


LABELS = ('base', 'series', 'debug', 'kunit.py', 'uml')


def expected(path, label):
    """(suite[, case[, param]]) of the lines of @path that name @label."""
    if not path:
        return []
    want = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.split('#', 1)[0].rstrip('\n')
            if not line.strip():
                continue
            test, tab, labels = line.partition('\t')
            unknown = set(labels.split()) - set(LABELS)
            if not tab or not labels.split() or unknown:
                sys.exit(f'{path}:{number}: not "SUITE[ CASE[ PARAM]]<TAB>LABEL...", '
                         f'with labels among {", ".join(LABELS)}')
            if label in labels.split():
                want.append(tuple(test.strip().split(' ', 2)))
    return want


if __name__ == '__main__':
    main()
