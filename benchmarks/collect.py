"""Merge the case lists printed by benchmarks/bench_*.py into one JSON document and a table.

    python benchmarks/collect.py OUT.json < lines      (one JSON list of cases per line)

OUT.json is exactly {"machine": {...}, "cases": [{"name", "unit", "ours", "peer", "peer_name", "ratio",
"target", "met"}]} (issue 10's schema): ``ratio`` is how many times better we are (> 1 is better),
``met`` compares it with ``target`` (each bench decides: most targets are a ratio to reach, a few an
absolute bound, in the case's unit or as a sentence). Anything else a bench adds to a case (trials,
samples, ...) goes to OUT-details.json under the case's name, so the main document keeps the schema.
A case missing a field is reported and counted as not met.
"""
import json
import os
import platform
import sys

FIELDS = ("name", "unit", "ours", "peer", "peer_name", "ratio", "target", "met")


def machine():
    mem = None
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {"cpus": os.cpu_count(), "memory_mib": mem, "platform": platform.platform(),
            "python": platform.python_version(), "load_average_1min_at_end": round(load, 2) if load else load}


def normalise(raw, problems):
    case = dict((k, raw.get(k)) for k in FIELDS)
    missing = [k for k in FIELDS if k not in raw]
    if missing:
        problems.append("%s: missing %s" % (raw.get("name", "?"), ", ".join(missing)))
        case["met"] = False
    case["met"] = bool(case["met"])  # the bench compares: a target is a ratio to reach or an absolute bound
    extra = dict((k, v) for k, v in raw.items() if k not in FIELDS)
    return case, extra


def met_text(case):
    """yes / NO, or "-" for a case with no target (report only): printing NO there read as a miss."""
    return "-" if case["target"] is None else ("yes" if case["met"] else "NO")


def num(v):
    if isinstance(v, bool) or v is None:
        return "-" if v is None else str(v)
    if isinstance(v, (int, float)):
        return "%.3g" % v if abs(v) < 1000 else "%d" % v
    return str(v)


def main():
    out = sys.argv[1]
    cases, details, problems = [], {}, []
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            raw_cases = json.loads(line)
        except ValueError as e:
            problems.append("unreadable bench output %r: %s" % (line[:80], e))
            continue
        for raw in raw_cases:
            case, extra = normalise(raw, problems)
            cases.append(case)
            if extra:
                details[case["name"]] = extra
    doc = {"machine": machine(), "cases": cases}
    with open(out, "w") as f:
        json.dump(doc, f, indent=2)
    root, ext = os.path.splitext(out)
    with open(root + "-details" + ext, "w") as f:
        json.dump(details, f, indent=2)
    width = max([len(c["name"]) for c in cases] + [4])
    print("%-*s %-16s %10s %10s %7s %8s  %-4s %s" % (width, "case", "unit", "ours", "peer", "ratio", "target", "met",
                                                    "peer_name"))
    for c in cases:
        target = c["target"] if isinstance(c["target"], (int, float)) or c["target"] is None else "(text)"
        print("%-*s %-16s %10s %10s %7s %8s  %-4s %s" % (width, c["name"], str(c["unit"])[:16], num(c["ours"]),
                                                        num(c["peer"]), num(c["ratio"]), num(target),
                                                        met_text(c), c["peer_name"]))
    for c in cases:
        if not isinstance(c["target"], (int, float)) and c["target"] is not None:  # no target: "-" in the table
            print("  target of %s: %s" % (c["name"], c["target"]))
    for p in problems:
        print("PROBLEM: " + p)
    print("written: %s (and %s)" % (out, root + "-details" + ext))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
