"""Run the Array API conformance suite (data-apis/array-api-tests) on tenferro.array_api.

    python tests/array_api/run_conformance.py [--suite /path/to/array-api-tests]
        [--max-examples 20] [pytest args...]

Runs the suite with ARRAY_API_TESTS_MODULE=tenferro.array_api, API version 2024.12,
this worktree on PYTHONPATH, a fixed --max-examples and a fixed Hypothesis seed, both
extensions (linalg, fft) enabled and tests/array_api/xfails.txt as the skips file; prints one row per test file (passed, failed, skipped, pass rate) and
the total, then why tests were skipped and which failed.  The suite is not vendored: clone it with its submodule
(``git clone --recursive https://github.com/data-apis/array-api-tests``).
"""
import argparse
import collections
import os
import pathlib
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def run(suite, max_examples, extra):
    with tempfile.TemporaryDirectory() as tmp:
        xml = pathlib.Path(tmp) / "report.xml"
        env = dict(os.environ, ARRAY_API_TESTS_MODULE="tenferro.array_api",
                   ARRAY_API_TESTS_VERSION="2024.12",
                   PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                            os.environ.get("PYTHONPATH")])))
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "array_api_tests/", "--max-examples", str(max_examples),
               "--hypothesis-seed", "0",
               "--skips-file", str(HERE / "xfails.txt"), "--junitxml", str(xml)] + extra
        subprocess.run(cmd, cwd=suite, env=env, stdout=subprocess.DEVNULL)
        return ET.parse(xml).getroot()


def tally(root):
    """Outcomes per test file, and the failures as (test id, first line of message)."""
    counts = collections.defaultdict(collections.Counter)
    failures, skips = [], collections.Counter()
    for case in root.iter("testcase"):
        name = [p for p in case.get("classname", "").split(".") if p.startswith("test_")]
        name = (name[-1] if name else "?") + ".py"
        if case.find("skipped") is not None:
            outcome = "skipped"
            skips["%s: %s" % (name, case.find("skipped").get("message", "")[:110])] += 1
        elif case.find("failure") is not None or case.find("error") is not None:
            outcome = "failed"
            bad = case.find("failure") if case.find("failure") is not None else case.find("error")
            failures.append("%s::%s: %s" % (name, case.get("name"),
                                            (bad.get("message") or "").split("\n")[0][:150]))
        else:
            outcome = "passed"
        counts[name][outcome] += 1
    return counts, failures, skips


def table(counts):
    rows = ["| file | passed | failed | skipped | pass rate |", "|---|---|---|---|---|"]
    total = collections.Counter()
    for name in sorted(counts):
        c = counts[name]
        total.update(c)
        rows.append(_row(name, c))
    rows.append(_row("**total**", total))
    return "\n".join(rows)


def _row(name, c):
    ran = c["passed"] + c["failed"]
    rate = "%.1f%%" % (100.0 * c["passed"] / ran) if ran else "-"
    return "| %s | %d | %d | %d | %s |" % (name, c["passed"], c["failed"], c["skipped"], rate)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--suite", default=os.environ.get("ARRAY_API_TESTS_DIR",
                                                     "/work/array-api-tests"))
    p.add_argument("--max-examples", type=int, default=100)
    args, extra = p.parse_known_args()
    counts, failures, skips = tally(run(args.suite, args.max_examples, extra))
    print(table(counts))
    print("\nskipped:\n" + "\n".join("%3d  %s" % (n, why) for why, n in sorted(skips.items())))
    if failures:
        print("\nfailed:\n" + "\n".join(failures))


if __name__ == "__main__":
    main()
