#!/usr/bin/env python3
"""SD-card writes for scripts/bench: bytes a process hands the kernel for one SQLite database.

Subcommands (each prints one line `key=value ...` that scripts/bench reads):
  scene OUT.btsnoop SENSORS PERIOD_S HOURS
                          SENSORS MM-BLEBC7 thermometers (service data 0xFFE1, A1 01), each heard
                          every PERIOD_S seconds (its own phase, ±10 % jitter) for HOURS hours,
                          temperature and humidity drifting; a fixed seed: the same file every run
  rows SRC.db OUT.tsv     the readings of SRC.db (our store's file), decoded into the plain
                          columns a typical Python logger stores (time, address, temperature,
                          humidity, battery), in time order; written before any tracing
  naive ROWS.tsv DST.db   the naive logger: one INSERT and one COMMIT per reading into a fresh
                          DST.db, WAL mode, SQLite's default synchronous setting
  sum STRACE DB           the bytes written to DB and its -wal, -shm and -journal files, from
                          `strace -f -y -e trace=write,pwrite64,writev,pwritev,fsync,fdatasync`
                          output: the sum of the return values, by file; fsyncs counted apart

Only write(2)-family calls are seen: SQLite maps the -shm file (its WAL index) into memory and
changes it without a syscall, so `shm` counts only the bytes written to extend that file.
"""
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# `1234  pwrite64(5</tmp/x/w.db-wal>, "..."..., 4120, 8272) = 4120`, with the pid when -f, or the
# two halves of a call another thread interrupted: `... <unfinished ...>` and
# `1234  <... pwrite64 resumed>) = 4120`.
CALL = re.compile(r"^(?:(\d+)\s+)?(write|pwrite64|writev|pwritev|fsync|fdatasync)\((\d+)<([^>]*)>")
RESUMED = re.compile(r"^(?:(\d+)\s+)?<\.\.\. (\w+) resumed>")
# The return value, at the end of the line (then only an errno's name and text): a data excerpt
# earlier on the line may hold ") = N" itself.
RESULT = re.compile(r"\)\s+=\s+(-?\d+)(?:\s+E[A-Z0-9]+\s+\(.*\))?\s*$")


def peers():
    """scripts/bench-peers.py as a module (its name has a dash): the blob decoder lives there."""
    spec = importlib.util.spec_from_file_location("bench_peers", os.path.join(HERE, "bench-peers.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def captures():
    """scripts/bench-captures.py as a module: its btsnoop writer and time line."""
    spec = importlib.util.spec_from_file_location("bench_captures", os.path.join(HERE, "bench-captures.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cmd_scene(out, sensors, period_s, hours):
    """A simple scene: a few sensors heard often, as in a house (the SD-wear budget's scene)."""
    import heapq
    import random
    import struct

    bc = captures()
    rng = random.Random(30)
    period = int(period_s * 1_000_000)
    end = bc.START + int(hours * 3600 * 1_000_000)

    def sensor(k):
        addr_le = bytes([k + 1, 0x5E, 0x4E, 0x51, 0xC0, 0xC3])  # static random: top two bits set
        r = random.Random(k)
        t = bc.START + r.randrange(period)
        temp, hum = 20.0 + k % 7, 45.0 + k % 11
        while t < end:
            temp = min(35.0, max(-5.0, temp + r.uniform(-0.05, 0.05)))
            hum = min(90.0, max(20.0, hum + r.uniform(-0.1, 0.1)))
            # 02 01 06 flags; 10 16 E1 FF A1 01 battery temp(8.8 BE) hum(8.8 BE) MAC(LE).
            ad = bytes([0x02, 0x01, 0x06, 0x10, 0x16, 0xE1, 0xFF, 0xA1, 0x01, 90 + k % 10])
            ad += struct.pack(">hH", round(temp * 256), round(hum * 256)) + addr_le
            body = bytes([0x02, 0x01, 0x00, 0x01]) + addr_le + bytes([len(ad)]) + ad + bytes([0xC4])
            yield t, bytes([0x04, 0x3E, len(body)]) + body
            t += period + r.randint(-period // 10, period // 10)

    records = list(heapq.merge(*(sensor(k) for k in range(sensors)), key=lambda e: e[0]))
    size = bc.write_capture(out, iter(records))
    print("reports=%d records=%d bytes=%d span_s=%.1f sensors=%d" % (
        len(records), len(records), size, (records[-1][0] - records[0][0]) / 1e6, sensors))


def cmd_rows(src, out):
    """The same readings as bench-peers.py ingest-naive stores, as tab-separated text."""
    import sqlite3

    decode = peers().decode_measurements
    source = sqlite3.connect("file:%s?mode=ro" % src, uri=True)
    keys = dict(source.execute("SELECT id, key FROM quantities"))
    addresses = {
        sid: ":".join("%02X" % ((a >> s) & 0xFF) for s in range(40, -8, -8))
        for sid, a in source.execute("SELECT id, address FROM sensors")
    }
    n = 0
    with open(out, "w") as f:
        for t, sid, data in source.execute("SELECT time_us, sensor_id, data FROM readings ORDER BY time_us, sensor_id"):
            m = {keys[q]: v for q, v in decode(data)}
            values = [m.get(k) for k in ("temperature_c", "humidity_pct", "battery_pct")]
            f.write("\t".join([repr(t / 1e6), addresses[sid]] + ["" if v is None else repr(v) for v in values]) + "\n")
            n += 1
    source.close()
    print("rows=%d" % n)


def cmd_naive(rows_path, dst):
    """What a typical Pi script does: sqlite3 with its defaults, WAL, and a commit per reading
    (the table and index of bench-peers.py ingest-naive)."""
    import sqlite3

    rows = []
    with open(rows_path) as f:
        for line in f:
            t, address, *values = line.rstrip("\n").split("\t")
            rows.append((float(t), address, *[float(v) if v else None for v in values]))
    con = sqlite3.connect(dst)
    mode = con.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    synchronous = con.execute("PRAGMA synchronous").fetchone()[0]
    con.execute("CREATE TABLE IF NOT EXISTS readings (time REAL, address TEXT, temperature REAL, humidity REAL, battery REAL)")
    con.execute("CREATE INDEX IF NOT EXISTS readings_address_time ON readings (address, time)")
    con.commit()
    for r in rows:
        con.execute("INSERT INTO readings VALUES (?, ?, ?, ?, ?)", r)
        con.commit()
    con.close()
    print("rows=%d journal_mode=%s synchronous=%s" % (len(rows), mode, synchronous))


def cmd_sum(trace, db):
    """Sums the return values of the write calls on `db`'s files, by file kind."""
    kinds = {db: "db", db + "-wal": "wal", db + "-shm": "shm", db + "-journal": "journal"}
    total = {"db": 0, "wal": 0, "shm": 0, "journal": 0}
    calls = syncs = 0
    pending = {}  # pid -> (call, kind) of an <unfinished ...> call
    with open(trace, errors="replace") as f:
        for line in f:
            m = CALL.match(line)
            if m:
                pid, call, kind = m.group(1), m.group(2), kinds.get(m.group(4))
                if "<unfinished ...>" in line:
                    pending[pid] = (call, kind)
                    continue
            else:
                m = RESUMED.match(line)
                if not m or m.group(1) not in pending:
                    continue
                call, kind = pending.pop(m.group(1))
            if kind is None:
                continue
            r = RESULT.search(line)
            if not r:
                continue
            if call in ("fsync", "fdatasync"):
                syncs += 1
            elif int(r.group(1)) > 0:
                total[kind] += int(r.group(1))
                calls += 1
    print(
        "bytes=%d db=%d wal=%d shm=%d journal=%d calls=%d syncs=%d"
        % (sum(total.values()), total["db"], total["wal"], total["shm"], total["journal"], calls, syncs)
    )


def main(argv):
    if len(argv) == 6 and argv[1] == "scene":
        cmd_scene(argv[2], int(argv[3]), float(argv[4]), float(argv[5]))
    elif len(argv) == 4 and argv[1] == "rows":
        cmd_rows(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "naive":
        cmd_naive(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "sum":
        cmd_sum(argv[2], argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
