#!/usr/bin/env python3
"""Check a JSON file written by json_write (include/output.h) with a real parser.

Usage: json_check.py ACTUAL [EXPECTED]

Parses ACTUAL as strict UTF-8 JSON (RFC 8259: no NaN/Infinity, no duplicate
keys). With EXPECTED, also parses that file and requires the two to be equal
in value, type (int, float, str, null are all different) and key order.
Exit status 0 if so; otherwise 1 with the reason on stderr.
"""
import json
import sys


def no_constants(name):
    raise ValueError(f"non-standard constant {name}")


def pairs(items):
    keys = [k for k, _ in items]
    dup = {k for k in keys if keys.count(k) > 1}
    if dup:
        raise ValueError(f"duplicate keys {sorted(dup)}")
    return items  # a list of pairs keeps the order for the comparison


def load(path):
    with open(path, encoding="utf-8", errors="strict") as f:
        return json.load(f, object_pairs_hook=pairs, parse_constant=no_constants)


def diff(a, b, where="$"):
    if type(a) is not type(b):
        return f"{where}: {a!r} ({type(a).__name__}) != {b!r} ({type(b).__name__})"
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items != {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            d = diff(x, y, f"{where}[{i}]")
            if d:
                return d
        return None
    if isinstance(a, tuple):  # one (key, value) pair of an object
        if a[0] != b[0]:
            return f"{where}: key {a[0]!r} != {b[0]!r}"
        return diff(a[1], b[1], f"{where}.{a[0]}")
    return None if a == b else f"{where}: {a!r} != {b!r}"


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        actual = load(sys.argv[1])
        expected = load(sys.argv[2]) if len(sys.argv) == 3 else None
    except (OSError, ValueError) as e:
        print(f"json_check: {e}", file=sys.stderr)
        return 1
    if expected is not None:
        d = diff(actual, expected)
        if d:
            print(f"json_check: {sys.argv[1]} differs from {sys.argv[2]}: {d}",
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
