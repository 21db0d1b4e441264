#!/usr/bin/env python3
"""experiments/lib/jsondoc.py: a JSON document from shell values, written
by Python's json module (escaping is the encoder's, RFC 8259).

Standard input: records of three NUL-terminated fields, PATH TYPE VALUE:
  PATH   keys from the top, joined by "."; a key of digits is a list
         index (appended in order: "hosts.0.line", "command.1")
  TYPE   s  VALUE as a string
         n  VALUE as a number when it is one (-?(0|[1-9][0-9]*)(.[0-9]+)?),
            else null
         l  a literal: true, false or null (anything else: an error)
         o  an empty object, a  an empty list (VALUE ignored)
Objects keep the order in which their keys first came. Output: the
document, indented by 2, on standard output.

  printf '%s\\0' experiment s figure-7 quick l true | jsondoc.py

Exit status: 0, 2 on a malformed record (named with its path).
"""
import json
import re
import sys

NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")
LITERALS = {"true": True, "false": False, "null": None}


def value(path, kind, text):
    if kind == "s":
        return text
    if kind == "n":
        if NUMBER.fullmatch(text):
            return float(text) if "." in text else int(text)
        return None
    if kind == "l":
        if text not in LITERALS:
            raise ValueError("%s: literal '%s' is not true, false or null" % (path, text))
        return LITERALS[text]
    if kind == "o":
        return {}
    if kind == "a":
        return []
    raise ValueError("%s: type '%s' is not s, n, l, o or a" % (path, kind))


def put(doc, path, v):
    """Set PATH (keys joined by ".") in DOC to V, making the objects and
    lists on the way."""
    keys = path.split(".")
    node = doc
    for i, k in enumerate(keys):
        last = i == len(keys) - 1
        nxt = v if last else ([] if keys[i + 1].isdigit() else {})
        if isinstance(node, list):
            if not k.isdigit() or int(k) > len(node):
                raise ValueError("%s: list index %s out of order" % (path, k))
            if int(k) == len(node):
                node.append(nxt)
            elif last:
                node[int(k)] = v
            node = node[int(k)]
        else:
            if last or k not in node:
                node[k] = nxt
            node = node[k]


def main():
    fields = sys.stdin.buffer.read().decode("utf-8", "surrogateescape").split("\0")
    if fields and fields[-1] == "":
        fields.pop()
    if len(fields) % 3:
        sys.stderr.write("jsondoc.py: %d fields, not records of 3 (PATH TYPE VALUE)\n" % len(fields))
        return 2
    doc = {}
    try:
        for i in range(0, len(fields), 3):
            put(doc, fields[i], value(*fields[i:i + 3]))
    except ValueError as e:
        sys.stderr.write("jsondoc.py: %s\n" % e)
        return 2
    sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
