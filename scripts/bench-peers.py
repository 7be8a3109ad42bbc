#!/usr/bin/env python3
"""The peers' side of scripts/bench: Python decoders and sqlite3 on the same data, in the same run.

Subcommands (each prints one line `key=value ...` that scripts/bench reads):
  vectors VECTORS.jsonl OUT.txt     the mixed vector set as `AA:BB:CC:DD:EE:FF <AD hex>` lines, the
                                    input of `blesensor-bench decode` (written to a temp dir, never
                                    into the repo: the vectors are other projects' data)
  bleparser VECTORS.jsonl           advertisements/s through bleparser's BleParser.parse_raw_data,
                                    fed the HCI LE Advertising Report event built from the AD bytes
                                    (the way ble_monitor's own tests feed it)
  bleparser-passes VECTORS.jsonl N  the same decode of the set, exactly N times and untimed: for
                                    callgrind, whose instruction counts do not drift with the
                                    host's load as rates do
  bleparser-lines LINES.txt         lines/s of bleparser's loop as a `decode` command would run it:
                                    each `AA:BB:CC:DD:EE:FF <AD hex>` line of LINES.txt parsed,
                                    made an HCI event, decoded, and its reading written as a JSON
                                    line (json.dumps) to /dev/null through a buffered file; the whole
                                    loop is timed, the import and the reading of LINES.txt are not
  theengs VECTORS.jsonl             advertisements/s through TheengsDecoder.decodeBLE, fed the JSON
                                    document Theengs Gateway builds (id, name, manufacturerdata with
                                    its company id, servicedata + servicedatauuid)
  ingest SRC.db DST.db BATCH        rows/s of sqlite3.executemany inserting the rows that
                                    blesensor-bench wrote into SRC.db, into the same table in DST.db
  ingest-naive SRC.db DST.db BATCH  informative: rows/s of a typical naive Python logger (plain
                                    columns time, address text, temperature, humidity, battery in
                                    a rowid table indexed on (address, time)) storing the same
                                    readings, decoded from SRC.db

Only the decode call is timed: building HCI packets or JSON strings happens once, before the clock
starts, exactly as the Swift side parses its hex once. Rates are the median of several rounds.
"""
import json
import re
import logging
import os
import statistics
import struct
import sys
import time

ADDRESS = re.compile(r"[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}")


def load_advertisements(path):
    """(address text, AD bytes) for every vector with AD bytes, in file order."""
    out = []
    for n, line in enumerate(open(path, encoding="utf-8")):
        line = line.strip()
        if not line:
            continue
        rec = json.loads(line)
        ad_hex = rec.get("raw_adv_hex") or rec.get("adv_hex_synthesized")
        if not ad_hex:
            continue
        address = rec.get("address") or ""
        if not ADDRESS.fullmatch(address):
            # Missing, or a macOS CoreBluetooth UUID in the peer's test: a placeholder per vector.
            address = "00:00:00:00:%02X:%02X" % (n >> 8 & 0xFF, n & 0xFF)
        out.append((address.upper(), bytes.fromhex(ad_hex)))
    return out


def ad_structures(ad):
    """(type, payload) of each AD structure; stops at a zero length or an overrun (like btmon)."""
    i = 0
    while i < len(ad):
        length = ad[i]
        if length == 0 or i + 1 + length > len(ad):
            break
        yield ad[i + 1], ad[i + 2 : i + 1 + length]
        i += 1 + length


def timed_rate(fn, items, rounds, min_seconds):
    """Median items/s over `rounds` rounds of at least `min_seconds` each; also fn's hit count."""
    rates = []
    hits = sum(1 for x in items if fn(x))
    for _ in range(rounds):
        n = 0
        start = time.perf_counter()
        while True:
            for x in items:
                fn(x)
            n += len(items)
            elapsed = time.perf_counter() - start
            if elapsed >= min_seconds:
                break
        rates.append(n / elapsed)
    return statistics.median(rates), hits


def hci_event(address, ad, rssi=-60):
    """HCI LE Meta / LE Advertising Report event with one report, with the H4 indicator 0x04:
    04 3E len 02 01 evt_type addr_type addr(6, LE) data_len data rssi."""
    addr = bytes.fromhex(address.replace(":", ""))[::-1]
    body = bytes([0x02, 0x01, 0x00, 0x00]) + addr + bytes([len(ad)]) + ad + bytes([rssi & 0xFF])
    return bytes([0x04, 0x3E, len(body)]) + body


def theengs_json(address, ad, rssi=-60):
    doc = {"id": address, "rssi": rssi}
    for t, p in ad_structures(ad):
        if t in (0x08, 0x09) and "name" not in doc:
            doc["name"] = p.decode("utf-8", "replace")
        elif t == 0xFF and "manufacturerdata" not in doc:
            doc["manufacturerdata"] = p.hex()
        elif t == 0x16 and len(p) >= 2 and "servicedata" not in doc:
            doc["servicedatauuid"] = "0x%04x" % (p[0] | p[1] << 8)
            doc["servicedata"] = p[2:].hex()
    return json.dumps(doc)


def cmd_vectors(src, dst):
    ads = load_advertisements(src)
    with open(dst, "w", encoding="ascii") as f:
        for address, ad in ads:
            f.write("%s %s\n" % (address, ad.hex()))
    print("vectors=%d" % len(ads))


def bleparser_decoder(src):
    """bleparser's decode of one HCI packet (True when it made a reading), the packets of the
    vector set, and the set of packets it raised on."""
    logging.disable(logging.CRITICAL)
    from bleparser import BleParser

    parser = BleParser()
    # Legacy reports carry at most 255 AD bytes in this framing; longer (extended) ones are skipped.
    packets = [hci_event(a, ad) for a, ad in load_advertisements(src) if len(ad) <= 240]
    raised = set()

    def one(p):
        # bleparser raises on some real frames (e.g. a TypeError in smartdry); its caller,
        # ble_monitor, survives those, so the benchmark does too and counts them.
        try:
            sensor, _tracker = parser.parse_raw_data(p)
        except Exception:
            raised.add(p)
            return False
        return sensor is not None

    return one, packets, raised


class StdoutDiscarded:
    """Some bleparser decoders print() on every frame ("packet_id is …"): that goes to /dev/null,
    so that the terminal's speed is not part of the measurement."""

    def __enter__(self):
        self.real = sys.stdout
        sys.stdout = open(os.devnull, "w")

    def __exit__(self, *exc):
        sys.stdout.close()
        sys.stdout = self.real


def cmd_bleparser(src, rounds, min_seconds):
    one, packets, raised = bleparser_decoder(src)
    with StdoutDiscarded():
        rate, hits = timed_rate(one, packets, rounds, min_seconds)
    print("adv_per_s=%.0f decoded=%d total=%d raised=%d" % (rate, hits, len(packets), len(raised)))


def cmd_bleparser_passes(src, passes):
    one, packets, _raised = bleparser_decoder(src)
    with StdoutDiscarded():
        for _ in range(passes):
            for p in packets:
                one(p)
    print("reports=%d" % (passes * len(packets)))


def cmd_bleparser_lines(lines_path):
    logging.disable(logging.CRITICAL)
    from bleparser import BleParser

    parser = BleParser()
    lines = open(lines_path, encoding="ascii").read().splitlines()
    written = 0
    with StdoutDiscarded(), open(os.devnull, "w", buffering=1 << 18) as out:
        start = time.perf_counter()
        for line in lines:
            address, _, ad_hex = line.partition(" ")
            ad = bytes.fromhex(ad_hex)
            if len(ad) > 240:
                continue
            try:
                sensor, _tracker = parser.parse_raw_data(hci_event(address, ad))
            except Exception:
                continue
            if sensor is not None:
                out.write(json.dumps(sensor, separators=(",", ":"), default=str) + "\n")
                written += 1
        elapsed = time.perf_counter() - start
    print("lines_per_s=%.0f lines=%d written=%d" % (len(lines) / elapsed, len(lines), written))


def cmd_theengs(src, rounds, min_seconds):
    from TheengsDecoder import decodeBLE

    docs = [theengs_json(a, ad) for a, ad in load_advertisements(src)]

    def one(d):
        return decodeBLE(d) is not None

    rate, hits = timed_rate(one, docs, rounds, min_seconds)
    print("adv_per_s=%.0f decoded=%d total=%d" % (rate, hits, len(docs)))


def cmd_ingest(src, dst, batch):
    """Reads the rows blesensor-bench wrote through SensorStore (table `readings`, in key order)
    and inserts the same rows with executemany into a fresh file with the same table and index
    definitions and the same settings the store uses (WAL, synchronous=NORMAL), one transaction
    per `batch` rows. Only the inserts are timed."""
    import sqlite3

    source = sqlite3.connect(src)
    ddl = [
        r[0]
        for r in source.execute(
            "SELECT sql FROM sqlite_schema WHERE tbl_name = 'readings' AND sql IS NOT NULL ORDER BY type DESC"
        )
    ]
    rows = source.execute("SELECT time_us, sensor_id, samples, data FROM readings ORDER BY time_us, sensor_id").fetchall()
    source.close()
    timed_inserts(dst, ddl, "INSERT INTO readings (time_us, sensor_id, samples, data) VALUES (?, ?, ?, ?)", rows, batch)


def timed_inserts(dst, ddl, insert, rows, batch):
    """Creates `ddl` in a fresh `dst` with the store's settings (WAL, synchronous=NORMAL), then
    inserts `rows` with executemany, one transaction per `batch` rows; prints the timed rate."""
    import sqlite3

    con = sqlite3.connect(dst, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    for sql in ddl:
        con.execute(sql)
    start = time.perf_counter()
    start_cpu = time.process_time()  # user + system, all threads
    for i in range(0, len(rows), batch):
        con.execute("BEGIN")
        con.executemany(insert, rows[i : i + batch])
        con.execute("COMMIT")
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - start_cpu
    con.close()
    print("rows_per_s=%.0f cpu_us_per_row=%.2f rows=%d" % (len(rows) / elapsed, cpu * 1e6 / len(rows), len(rows)))


def decode_measurements(blob):
    """`readings.data` (Sources/SensorStore/MeasurementCodec.swift) as [(quantity id, value)]."""
    out, i = [], 0

    def varint():
        nonlocal i
        v = shift = 0
        while True:
            b = blob[i]
            i += 1
            v |= (b & 0x7F) << shift
            if b < 0x80:
                return v
            shift += 7

    while i < len(blob):
        qid = varint()
        kind = blob[i]
        i += 1
        if kind == 5:
            value = struct.unpack("<d", blob[i : i + 8])[0]
            i += 8
        else:
            z = varint()
            value = ((z >> 1) ^ -(z & 1)) / 10**kind
        out.append((qid, value))
    return out


def cmd_ingest_naive(src, dst, batch):
    """Informative, no goal: what a typical hand-written Python logger would store for the same
    readings (one row per reading, plain columns, rowid table, index on (address, time)), with
    executemany, one transaction per `batch` rows, WAL, synchronous=NORMAL. The readings are
    decoded from the rows blesensor-bench wrote, before the clock starts; only inserts are timed."""
    import sqlite3

    source = sqlite3.connect(src)
    keys = dict(source.execute("SELECT id, key FROM quantities"))
    addresses = {
        sid: ":".join("%02X" % ((a >> s) & 0xFF) for s in range(40, -8, -8))
        for sid, a in source.execute("SELECT id, address FROM sensors")
    }
    rows = []
    for t, sid, data in source.execute("SELECT time_us, sensor_id, data FROM readings ORDER BY time_us, sensor_id"):
        m = {keys[q]: v for q, v in decode_measurements(data)}
        rows.append((t / 1e6, addresses[sid], m.get("temperature_c"), m.get("humidity_pct"), m.get("battery_pct")))
    source.close()
    ddl = [
        "CREATE TABLE readings (time REAL, address TEXT, temperature REAL, humidity REAL, battery REAL)",
        "CREATE INDEX readings_address_time ON readings (address, time)",
    ]
    timed_inserts(dst, ddl, "INSERT INTO readings VALUES (?, ?, ?, ?, ?)", rows, batch)


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 64
    cmd = argv[1]
    rounds = 5
    min_seconds = 0.5
    if "--quick" in argv:
        argv = [a for a in argv if a != "--quick"]
        rounds, min_seconds = 3, 0.2
    if cmd == "vectors" and len(argv) == 4:
        cmd_vectors(argv[2], argv[3])
    elif cmd == "bleparser" and len(argv) == 3:
        cmd_bleparser(argv[2], rounds, min_seconds)
    elif cmd == "bleparser-passes" and len(argv) == 4 and argv[3].isdigit():
        cmd_bleparser_passes(argv[2], int(argv[3]))
    elif cmd == "bleparser-lines" and len(argv) == 3:
        cmd_bleparser_lines(argv[2])
    elif cmd == "theengs" and len(argv) == 3:
        cmd_theengs(argv[2], rounds, min_seconds)
    elif cmd == "ingest" and len(argv) == 5:
        cmd_ingest(argv[2], argv[3], int(argv[4]))
    elif cmd == "ingest-naive" and len(argv) == 5:
        cmd_ingest_naive(argv[2], argv[3], int(argv[4]))
    else:
        print(__doc__, file=sys.stderr)
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
