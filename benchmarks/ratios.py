#!/usr/bin/env python3
"""Reads JMH JSON (results.json) and prints markdown: per benchmark and variant the median of the per-fork scores,
JMH's score and error, and the ratios Spotkit/Pekko and Spotkit/raw computed from the fork medians.
RelocationChunkBenchmark gets its own table: payloads/s turned into MiB/s of payload, and relocation/raw.
LocationStoreBenchmark gets its own table: round trips/s, us/op and each store operation / baselineEvalsha.
RelocationPauseBenchmark (SampleTime) gets its own table: p50/p99 of the join round trip over all forks and per fork,
and crossNode/sameNode at p50 and p99."""
import json
import statistics
import sys

SPOTKIT = ("spotkit", "spotkit-mailbox")
RELOCATION = "RelocationChunk"
STORE = "LocationStoreBenchmark"
STORE_BASELINE = "baselineEvalsha"
PAUSE = "RelocationPauseBenchmark"


def key(r):
    params = dict(r.get("params", {}))
    impl = params.pop("impl")
    bench = r["benchmark"].rsplit(".", 2)[-2].replace("Benchmark", "")
    extra = ",".join(f"{k}={v}" for k, v in sorted(params.items()))
    return (bench + (f" ({extra})" if extra else ""), impl)


def main(path):
    rows = {}
    relocation = {}
    store = {}
    pause = {}
    for r in json.load(open(path)):
        m = r["primaryMetric"]
        if r["benchmark"].rsplit(".", 2)[-2] == PAUSE:
            pause[(r["params"]["impl"], int(r["params"]["stateBytes"]))] = r
            continue
        forks = [statistics.mean(f) for f in m["rawData"]]
        row = (statistics.median(forks), forks, m["score"], m["scoreError"], m["scoreUnit"])
        if r["benchmark"].rsplit(".", 2)[-2] == STORE:
            store[r["benchmark"].rsplit(".", 1)[-1]] = row
        elif r["benchmark"].rsplit(".", 2)[-2] == RELOCATION + "Benchmark":
            relocation[key(r)] = (int(r["params"]["payload"]),) + row
        else:
            rows[key(r)] = row
    if pause:
        print_pause(pause)
        if not rows and not relocation and not store:
            return
        print()
    if not rows:
        if relocation:
            print_relocation(relocation)
        if store:
            print_store(store)
        return
    print("| benchmark | variant | median of forks (ops/s) | per fork (M ops/s) | JMH score | error (99.9%) | unit |")
    print("|---|---|---:|---|---:|---:|---|")
    for (b, impl), (med, forks, score, err, unit) in rows.items():
        per = " / ".join(f"{f / 1e6:.2f}" for f in forks)
        err_s = f"{float(err):,.0f}" if str(err) not in ("NaN", "nan") else "n/a"
        print(f"| {b} | {impl} | {med / 1e6:.2f} M | {per} | {score:,.0f} | {err_s} | {unit} |")
    print()
    print("| benchmark | Spotkit variant | / pekko (defaults) | / pekko-tuned | / raw |")
    print("|---|---|---:|---:|---:|")
    benches = list(dict.fromkeys(b for b, _ in rows))
    for b in benches:
        for s in SPOTKIT:
            if (b, s) not in rows:
                continue
            mine = rows[(b, s)][0]
            cells = []
            for other in ("pekko", "pekko-tuned", "raw"):
                o = rows.get((b, other))
                cells.append(f"{mine / o[0]:.2f}x" if o else "n/a")
            print(f"| {b} | {s} | " + " | ".join(cells) + " |")
    if relocation:
        print()
        print_relocation(relocation)
    if store:
        print()
        print_store(store)


def print_store(rows):
    """Median of forks in ops/s (one op = one store operation or one raw EVALSHA), us/op, and / baselineEvalsha."""
    base = rows.get(STORE_BASELINE)
    print("| benchmark | median of forks (ops/s) | per fork (ops/s) | JMH score | error (99.9%) | us/op | / baseline |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for name in [STORE_BASELINE] + sorted(n for n in rows if n != STORE_BASELINE):
        if name not in rows:
            continue
        med, forks, score, err, _unit = rows[name]
        per = " / ".join(f"{f:,.0f}" for f in forks)
        ratio = f"{med / base[0]:.3f}" if base else "n/a"
        print(f"| {name} | {med:,.0f} | {per} | {score:,.0f} | {float(err):,.0f} | {1e6 / med:,.0f} | {ratio} |")


def print_relocation(rows):
    """Median of forks in payloads/s and MiB/s of payload (payloads/s x payload bytes / 2^20); relocation/raw."""
    print("| benchmark | variant | median of forks (payloads/s) | MiB/s of payload | per fork (MiB/s) | / raw |")
    print("|---|---|---:|---:|---|---:|")
    for (b, impl), (payload, med, forks, _score, _err, _unit) in rows.items():
        mib = payload / 2**20
        per = " / ".join(f"{f * mib:.1f}" for f in forks)
        raw = rows.get((b, "raw"))
        ratio = f"{med / raw[1]:.2f}x" if raw and impl != "raw" else ""
        print(f"| {b} | {impl} | {med:,.1f} | {med * mib:,.1f} | {per} | {ratio} |")


def fork_percentiles(metric):
    """(samples, p50, p99) of each fork from JMH's SampleTime histogram."""
    out = []
    for fork in metric["rawDataHistogram"]:
        values = sorted(v for iteration in fork for v, c in iteration for _ in range(c))
        pick = lambda q: values[min(len(values) - 1, int(q * len(values)))]
        out.append((len(values), pick(0.5), pick(0.99)))
    return out


def print_pause(rows):
    """p50/p99 in us of the JoinSpot round trip, all forks and per fork; crossNode/sameNode ratios."""
    print("| impl | state bytes | samples | p50 (us) | p99 (us) | per fork p50 / p99 (us) |")
    print("|---|---:|---:|---:|---:|---|")
    for (impl, size), r in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        m = r["primaryMetric"]
        forks = fork_percentiles(m)
        per = " ; ".join(f"{p50:,.0f} / {p99:,.0f}" for _, p50, p99 in forks)
        pct = m["scorePercentiles"]
        print(f"| {impl} | {size:,} | {sum(n for n, _, _ in forks):,} | {pct['50.0']:,.1f} | {pct['99.0']:,.1f}"
              f" | {per} |")
    print()
    print("| state bytes | crossNode / sameNode at p50 | at p99 |")
    print("|---:|---:|---:|")
    for size in sorted({size for _, size in rows}):
        cross, same = rows.get(("crossNode", size)), rows.get(("sameNode", size))
        if cross and same:
            c, b = cross["primaryMetric"]["scorePercentiles"], same["primaryMetric"]["scorePercentiles"]
            print(f"| {size:,} | {c['50.0'] / b['50.0']:,.0f}x | {c['99.0'] / b['99.0']:,.0f}x |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "results.json")
