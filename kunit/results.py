#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse the KUnit results of a boot log into result rows.

The KUnit suites built into the test kernel run during boot, before init.
This hands the boot log up to the start of init to the kernel's own
parser (tools/testing/kunit/kunit.py parse) and prints one tab-separated
row per suite: kernel, suite, passed, failed, skipped, note.

With --expect, a suite listed there for this kernel that did not run is a
failure, so that a suite lost from the configuration cannot pass unseen.
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
    parser.add_argument('--expect',
                        help='file of "SUITE KERNEL..." lines: suites that '
                             'must run on those kernels')
    parser.add_argument('console', help='serial console log of the boot')
    args = parser.parse_args()

    kunit_py = os.path.join(args.src, 'tools/testing/kunit/kunit.py')
    with tempfile.TemporaryDirectory() as tmp:
        boot = os.path.join(tmp, 'boot.log')
        result = os.path.join(tmp, 'kunit.json')
        with open(boot, 'w') as f:
            f.write(boot_log_before_init(args.console))
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
    if not rows:
        print(f'{args.kernel}\tkunit\t0\t1\t0\tno KUnit results in the boot log')
    for name, passed, failed, skipped in rows:
        print(f'{args.kernel}\tkunit {name}\t{passed}\t{failed}\t{skipped}\t')
    ran = {name for name, *_ in rows}
    for name in expected_suites(args.expect, args.kernel):
        if name not in ran:
            print(f'{args.kernel}\tkunit {name}\t0\t1\t0\tsuite did not run')


def expected_suites(path, kernel):
    if not path:
        return []
    suites = []
    with open(path) as f:
        for line in f:
            words = line.split('#', 1)[0].split()
            if words and kernel in words[1:]:
                suites.append(words[0])
    return suites


if __name__ == '__main__':
    main()
