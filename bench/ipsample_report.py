#!/usr/bin/env python3
"""Sum an ipsample profile (ipsample.c) by function, and by line within the
hottest ones.

    ipsample_report.py PROFILE [OBJECT=LOCALPATH ...] [--lines N]

The profile names objects as the profiled machine loaded them; OBJECT=
LOCALPATH reads another copy of an object here (the same build). Functions
come from the object's symbol table (nm), lines from its debug information
when it has any (addr2line)."""
import bisect
import collections
import subprocess
import sys


def symbols(path):
    out = subprocess.run(["nm", "-n", "--defined-only", path], capture_output=True, text=True)
    syms = []
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.append((int(parts[0], 16), parts[2]))
    return syms


def main():
    args = sys.argv[1:]
    lines_for = 0
    if "--lines" in args:
        i = args.index("--lines")
        lines_for = int(args[i + 1])
        del args[i:i + 2]
    profile, remap = args[0], dict(a.split("=", 1) for a in args[1:])
    rows, total = [], 0
    for line in open(profile):
        if line.startswith("#"):
            continue
        count, obj, off, sym = line.split(maxsplit=3)
        rows.append((int(count), obj, int(off, 16), sym.strip()))
        total += int(count)
    tables, by_func, offs = {}, collections.Counter(), collections.defaultdict(list)
    for count, obj, off, sym in rows:
        path = remap.get(obj, obj)
        if path not in tables:
            try:
                tables[path] = symbols(path)
            except OSError:
                tables[path] = []
        syms = tables[path]
        i = bisect.bisect_right([a for a, _ in syms], off) - 1 if syms else -1
        name = syms[i][1] if i >= 0 else sym
        key = (obj.rsplit("/", 1)[-1], name)
        by_func[key] += count
        offs[key].append((off, count, path))
    print(f"{total} samples")
    for (obj, name), count in by_func.most_common(40):
        print(f"{100.0 * count / total:6.2f}% {count:7d}  {name}  [{obj}]")
    for (obj, name), _ in by_func.most_common(lines_for):
        where = collections.Counter()
        for off, count, path in offs[(obj, name)]:
            out = subprocess.run(["addr2line", "-e", path, hex(off)], capture_output=True, text=True)
            where[out.stdout.strip().rsplit("/", 1)[-1]] += count
        print(f"\n{name}:")
        for loc, count in where.most_common(12):
            print(f"  {100.0 * count / total:6.2f}%  {loc}")


if __name__ == "__main__":
    main()
