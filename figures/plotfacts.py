#!/usr/bin/env python3
"""figures/plotfacts.py: what figures/plot reads from a run's CSV files,
in one pass of one process (figures/plot used to start a python3, a sort
and a grep per column it read: on a host where a process start is slow,
that was most of a figure's cost).

    plotfacts.py inputs SUMMARY SORTX-OUT [-v NAME=VALUE]...
        settings: raw (the run's raw.csv), ref (the reference summary),
        x, keys (rbcsv.py sortx's), manifest (manifest_line.py's input),
        name and judge (experiments/compare NAME JUDGE --verdicts)
    plotfacts.py sorted SUMMARY REF XVALS-OUT REFMOPS-OUT [-v NAME=VALUE]...
        settings: x, s, p (the x, series and panels columns), hostlim

Prints "NAME<TAB>VALUE" records, each ended by a NUL byte; each value is what the shell pipeline
it replaced printed, byte for byte:

  inputs: other (the smallest exp_name: rbcsv.py col | sort -u | head -n 1),
    servers (the raw rows' hosts of role server, sorted, unique, every
    comma followed by a space), anycb (the rows with client_bound yes),
    pcienum (1: some pcie_rd_per_op_median is a number), why (the most
    frequent pcie_counted of raw.csv but "", uncore and "process row
    only"; of equally frequent ones the first in byte order), bed
    (manifest_line.py's line), verdicts (experiments/compare's exit
    status, a tab, its output: the claims' verdicts); SORTX-OUT gets rbcsv.py sortx's lines of
    SUMMARY, each after "s<TAB>", then the reference's after "r<TAB>".
  sorted: svals, pvals (the distinct values of the s and p columns in
    both files, as `sort -n -u | tr '\\n' ' '` gives them), hostlink (the
    first non-empty link of hostlim); XVALS-OUT gets "x VALUE" per row of
    both files (x column), REFMOPS-OUT the reference's mops_median per row.

Exit 0; 2 on bad usage; 1 when SUMMARY or the reference cannot be read.
"""
import os
import re
import sys
from decimal import Decimal

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "experiments", "lib"))
sys.path.insert(0, HERE)
import rbcsv  # noqa: E402  (experiments/lib: the one CSV reader)

# grep -E '^[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$' (figures/plot's test
# of a counted PCIe value)
NUMERIC = re.compile(r"[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?")
# sort -n's number in the C locale: blanks, a minus, digits, a point, digits
SORT_N = re.compile(r"[ \t]*(-?)([0-9]*)(?:\.([0-9]*))?")


def b(s):
    """S as the bytes it was read from (sort and uniq compare bytes)."""
    return s.encode("utf-8", "surrogateescape")


def col(path, want, where="", is_=""):
    """rbcsv.py col's lines: the values of column WANT, one per row."""
    out, hdr = [], None
    for _, f in rbcsv.read_csv(path):
        if hdr is None:
            hdr = rbcsv.Header(f)
            continue
        if where == "" or (where in hdr and hdr.get(f, where) == is_):
            out.append(hdr.get(f, want) if want in hdr else "")
    return out


def sort_n_u(vals):
    """sort -n -u in the C locale: in numeric order, of the values equal
    as numbers (every non-number is 0) the first given."""
    def key(s):
        m = SORT_N.match(s)
        return Decimal("%s%s.%s" % (m.group(1), m.group(2) or "0", m.group(3) or "0"))
    seen, out = set(), []
    for v in sorted(vals, key=key):
        k = key(v)
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


def most_frequent(vals):
    """sort | uniq -c | sort -k1,1nr | first line's value: the most
    frequent; of equally frequent ones the smallest in byte order."""
    n = {}
    for v in vals:
        n[v] = n.get(v, 0) + 1
    return min(n, key=lambda v: (-n[v], b(v))) if n else ""


def optional(fn, *args):
    """FN(*ARGS), or None when it fails (a missing or unreadable raw.csv:
    the pipeline it replaces ran with 2> /dev/null || true)."""
    try:
        return fn(*args)
    except (OSError, ValueError, UnicodeError):
        return None


def sortx_lines(tag, path, x, keys, out):
    """rbcsv.py sortx's lines of PATH, each after TAG<TAB>."""
    keys = keys.split() or rbcsv.SORTX_KEYS
    hdr = None
    for line, f in rbcsv.read_csv(path):
        if hdr is None:
            hdr = rbcsv.Header(f)
            out.write("%s\t\t\t%s\n" % (tag, line))
            continue
        key = "".join(hdr.get(f, k) + "|" for k in keys if k != x and k in hdr)
        out.write("%s\t%s\t%s\t%s\n" % (tag, key, hdr.get(f, x) if x in hdr else "", line))


def manifest_bed(path):
    """manifest_line.py's line for the run's manifest.json ("" when it
    cannot be read)."""
    if not path:
        return ""
    import manifest_line
    try:
        return manifest_line.line(path).rstrip("\n")
    except Exception:  # noqa: BLE001  (it ran with 2> /dev/null || true)
        return ""


def verdicts(name, judged):
    """experiments/compare NAME JUDGED --verdicts, run in this process (its
    stderr dropped): its exit status and its stdout, trailing newlines
    removed, as "STATUS<TAB>TEXT"."""
    import io
    import runpy
    argv, out, err = sys.argv, sys.stdout, sys.stderr
    sys.argv = [os.path.join(os.path.dirname(HERE), "experiments", "compare"), name, judged, "--verdicts"]
    sys.stdout, sys.stderr = io.StringIO(), open(os.devnull, "w", encoding="utf-8")
    try:
        status = runpy.run_path(sys.argv[0], run_name="compare")["main"]()
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except Exception:  # noqa: BLE001  (a traceback: python3 exits 1)
        status = 1
    finally:
        text = sys.stdout.getvalue()
        sys.stderr.close()
        sys.argv, sys.stdout, sys.stderr = argv, out, err
    return "%d\t%s" % (status or 0, text.rstrip("\n"))


def inputs(opts, summary, sortx_out):
    facts = {}
    names = sorted({b(v) for v in col(summary, "exp_name")})
    facts["other"] = names[0].decode("utf-8", "surrogateescape") if names else ""
    raw = opts.get("raw", "")
    hosts = optional(col, raw, "host", "role", "server") if raw else None
    hosts = sorted({b(h) for h in hosts or [] if h != ""})
    facts["servers"] = b",".join(hosts).decode("utf-8", "surrogateescape").replace(",", ", ")
    facts["anycb"] = str(sum(1 for v in col(summary, "client_bound") if v == "yes"))
    facts["pcienum"] = "1" if any(NUMERIC.fullmatch(v) for v in col(summary, "pcie_rd_per_op_median")) else "0"
    counted = optional(col, raw, "pcie_counted") if raw else None
    facts["why"] = most_frequent(v for v in counted or [] if v not in ("", "uncore", "process row only"))
    facts["bed"] = manifest_bed(opts.get("manifest", ""))
    if opts.get("judge"):
        facts["verdicts"] = verdicts(opts.get("name", ""), opts["judge"])
    with open(sortx_out, "w", encoding="utf-8", errors="surrogateescape") as out:
        sortx_lines("s", summary, opts.get("x", ""), opts.get("keys", ""), out)
        sortx_lines("r", opts.get("ref", ""), opts.get("x", ""), opts.get("keys", ""), out)
    return facts


def vals(c, files):
    """figures/plot's vals: the distinct values of column C, sorted."""
    if not c:
        return ""
    v = [x for f in files for x in col(f, c) if x != ""]
    return "".join(x + " " for x in sort_n_u(v))


def sorted_facts(opts, summary, ref, xvals_out, refmops_out):
    x = opts.get("x", "")
    with open(xvals_out, "w", encoding="utf-8", errors="surrogateescape") as out:
        for f in (summary, ref) if x else ():
            out.writelines("x %s\n" % v for v in col(f, x))
    with open(refmops_out, "w", encoding="utf-8", errors="surrogateescape") as out:
        out.writelines("%s\n" % v for v in col(ref, "mops_median"))
    links = optional(col, opts.get("hostlim", ""), "link") or []
    return {"svals": vals(opts.get("s", ""), (summary, ref)),
            "pvals": vals(opts.get("p", ""), (summary, ref)),
            "hostlink": next((v for v in links if v != ""), "")}


def main(argv):
    modes = {"inputs": (inputs, 2), "sorted": (sorted_facts, 4)}
    if not argv or argv[0] not in modes:
        sys.stderr.write("usage: plotfacts.py inputs|sorted FILE... [-v NAME=VALUE]...\n")
        return 2
    fn, nfiles = modes[argv[0]]
    opts, files, args = {}, [], iter(argv[1:])
    for a in args:
        if a == "-v":
            name, eq, val = next(args, "").partition("=")
            if not eq or not name:
                sys.stderr.write("plotfacts.py: -v needs NAME=VALUE\n")
                return 2
            opts[name] = val
        else:
            files.append(a)
    if len(files) != nfiles:
        sys.stderr.write("plotfacts.py %s: %d files, want %d\n" % (argv[0], len(files), nfiles))
        return 2
    try:
        facts = fn(opts, *files)
    except OSError as e:
        sys.stderr.write("plotfacts.py %s: %s\n" % (argv[0], e))
        return 1
    out = sys.stdout.buffer
    for k, v in facts.items():
        out.write(b("%s\t%s" % (k, v)) + b"\0")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
