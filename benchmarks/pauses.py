#!/usr/bin/env python3
"""Merges the per-fork pause lines of RoomRelocationPauseBenchmark (RESULTS.md, "Room (aggregate) moves").

Usage: python3 benchmarks/pauses.py benchmarks/results-room-pause.txt [more logs...]

RAW lines (every recorded value of a fork, microseconds) are merged over all forks of all given logs:
p50 / p99 by nearest rank, max, n, and each fork's own p50 / p99. PAUSE lines of the phases are listed per fork
(p50 / p99 in ms).
"""
import math
import re
import sys
from collections import defaultdict

RAW = re.compile(r"RAW kind=(\S+) members=(\d+) what=(\S+) us=([\d,]*)")
PAUSE = re.compile(r"PAUSE kind=(\S+) members=(\d+) what=phase\.(\S+) p50_us=(\d+) p99_us=(\d+) max_us=(\d+) n=(\d+)")


def rank(values, p):
    """Nearest-rank percentile of sorted values."""
    if not values:
        return float("nan")
    return values[max(0, math.ceil(p / 100.0 * len(values)) - 1)]


def ms(us):
    return f"{us / 1000.0:,.1f}"


def main(paths):
    merged = defaultdict(list)
    forks = defaultdict(list)
    phases = defaultdict(list)
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = RAW.search(line)
                if m:
                    key = (m.group(1), int(m.group(2)), m.group(3))
                    values = sorted(int(v) for v in m.group(4).split(",") if v)
                    merged[key].extend(values)
                    forks[key].append(values)
                    continue
                m = PAUSE.search(line)
                if m:
                    phases[(m.group(1), int(m.group(2)))].append((m.group(3), int(m.group(4)), int(m.group(5))))
    print("| kind | members | what | n | p50 (ms) | p99 (ms) | max (ms) | per fork p50 / p99 (ms) |")
    print("|---|---:|---|---:|---:|---:|---:|---|")
    for key in sorted(merged, key=lambda k: (k[0] != "room", k[1], k[2])):
        values = sorted(merged[key])
        per_fork = " ; ".join(f"{ms(rank(v, 50))} / {ms(rank(v, 99))}" for v in forks[key])
        print(f"| {key[0]} | {key[1]:,} | {key[2]} | {len(values)} | {ms(rank(values, 50))} | "
              f"{ms(rank(values, 99))} | {ms(values[-1])} | {per_fork} |")
    print()
    print("Phases, p50 / p99 per fork (ms):")
    print()
    for key in sorted(phases, key=lambda k: (k[0] != "room", k[1])):
        by_name = defaultdict(list)
        for name, p50, p99 in phases[key]:
            by_name[name].append(f"{ms(p50)} / {ms(p99)}")
        for name, cells in by_name.items():
            print(f"| {key[0]} | {key[1]:,} | {name} | {' ; '.join(cells)} |")


if __name__ == "__main__":
    main(sys.argv[1:])
