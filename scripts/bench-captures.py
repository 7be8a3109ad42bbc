#!/usr/bin/env python3
"""Large btsnoop inputs for scripts/bench, written to a temp dir (never committed).

  repeat OUT MIN_REPORTS CAPTURE...   the LE Advertising Report events (subevent 0x02 / 0x0D) of
                                      the real captures (btsnoop 1002 or pcap 201), concatenated
                                      and repeated until at least MIN_REPORTS reports; each copy is
                                      shifted in time so that time stamps only go forward
  scene OUT MIN_REPORTS LAYERS CAPTURE...
                                      `repeat` LAYERS times at once: layer k shifted by k/LAYERS
                                      of the captures' span, its addresses' fifth octet XOR k,
                                      merged in time order (LAYERS times as many sensors)
  random OUT COUNT                    COUNT MM-BLEBC7 frames (service data 0xFFE1, A1 01) from
                                      COUNT distinct random static addresses, 10 ms apart

All print `reports=N records=M bytes=B`; repeat and scene add `span_s=S copies=C` (the seconds
from the first record to the last, the copies of the captures; the captures' own pace is kept,
time is not compressed) and scene `layers=K`. The output is btsnoop v1, link type 1002 (H4),
every record an incoming event (flags 3), as Android's snoop log writes it. Formats: btsnoop time
is microseconds since 0000-01-01, 0x00E03AB44A676000 being 2000-01-01T00:00:00Z; all btsnoop
fields are big-endian (see /work/shared/FACTS.md). pcap 201 records start with a 4-byte direction.
"""
import random
import struct
import sys

BTSNOOP_2000 = 0x00E03AB44A676000
UNIX_2000 = 946684800
# 2026-01-01T00:00:00Z: where the synthetic time line starts.
START = BTSNOOP_2000 + (1767225600 - UNIX_2000) * 1_000_000


def read_btsnoop(data):
    if data[:8] != b"btsnoop\0":
        raise ValueError("not btsnoop")
    _version, link = struct.unpack(">II", data[8:16])
    if link != 1002:
        raise ValueError("btsnoop link type %d, want 1002 (H4)" % link)
    i = 16
    while i + 24 <= len(data):
        _orig, incl, _flags, _drops, ts = struct.unpack(">IIIIq", data[i : i + 24])
        yield ts, data[i + 24 : i + 24 + incl]
        i += 24 + incl


def read_pcap(data):
    magic = data[:4]
    if magic == b"\xd4\xc3\xb2\xa1":
        e, nano = "<", False
    elif magic == b"\xa1\xb2\xc3\xd4":
        e, nano = ">", False
    elif magic == b"\x4d\x3c\xb2\xa1":
        e, nano = "<", True
    elif magic == b"\xa1\xb2\x3c\x4d":
        e, nano = ">", True
    else:
        raise ValueError("not pcap")
    link = struct.unpack(e + "I", data[20:24])[0]
    if link != 201:
        raise ValueError("pcap link type %d, want 201" % link)
    i = 24
    while i + 16 <= len(data):
        sec, frac, incl, _orig = struct.unpack(e + "IIII", data[i : i + 16])
        usec = frac // 1000 if nano else frac
        ts = BTSNOOP_2000 + (sec - UNIX_2000) * 1_000_000 + usec
        yield ts, data[i + 16 + 4 : i + 16 + incl]  # skip the 4-byte direction
        i += 16 + incl


def advertising_events(path):
    """(time, H4 packet, reports) of each LE advertising report event in a capture."""
    data = open(path, "rb").read()
    records = read_btsnoop(data) if data[:8] == b"btsnoop\0" else read_pcap(data)
    for ts, pkt in records:
        if len(pkt) >= 5 and pkt[0] == 0x04 and pkt[1] == 0x3E and pkt[3] in (0x02, 0x0D):
            yield ts, pkt, pkt[4]


def header():
    return b"btsnoop\0" + struct.pack(">II", 1, 1002)


def record(ts, pkt):
    return struct.pack(">IIIIq", len(pkt), len(pkt), 3, 0, ts) + pkt


def write_capture(out, records):
    """Writes the btsnoop header and the (time, H4 packet) records, 10,000 to a write; returns the
    file's size in bytes."""
    size = len(header())
    with open(out, "wb") as f:
        f.write(header())
        chunk = []
        for ts, pkt in records:
            chunk.append(record(ts, pkt))
            if len(chunk) == 10_000:
                data = b"".join(chunk)
                f.write(data)
                size += len(data)
                chunk = []
        data = b"".join(chunk)
        f.write(data)
        size += len(data)
    return size


def capture_unit(captures):
    """One unit: each capture's events moved to start 1 s after the previous capture's last one,
    as (time from the unit's start, H4 packet, reports); and the unit's length (µs)."""
    unit = []
    offset = 0
    for path in captures:
        events = list(advertising_events(path))
        if not events:
            continue
        first = events[0][0]
        last = offset
        for ts, pkt, n in events:
            rel = offset + max(0, ts - first)
            unit.append((rel, pkt, n))
            last = max(last, rel)
        offset = last + 1_000_000
    if not unit:
        raise SystemExit("no advertising report events in %s" % " ".join(captures))
    return unit, offset


def cmd_repeat(out, min_reports, captures):
    unit, offset = capture_unit(captures)
    per_unit = sum(n for _, _, n in unit)
    copies = -(-min_reports // per_unit)
    size = write_capture(out, ((START + c * offset + rel, pkt) for c in range(copies) for rel, pkt, _ in unit))
    reports, records = per_unit * copies, len(unit) * copies
    # From the first record to the last: the copies follow each other 1 s apart, at the
    # captures' own pace (time is not compressed).
    span = (copies * offset - 1_000_000) / 1e6
    print("reports=%d records=%d bytes=%d span_s=%.1f copies=%d" % (reports, records, size, span, copies))


def cmd_scene(out, min_reports, layers, captures):
    """`repeat`, LAYERS times over: layer k starts k/LAYERS of a unit later and its advertisers
    have their address's fifth octet XOR k (EE in AA:BB:CC:DD:EE:FF; the OUI and the AD bytes
    stay as recorded, so the
    same decoders read them), so LAYERS times as many sensors are heard at once, each at its
    recorded pace. Legacy single-report events only (all the real captures have)."""
    import heapq

    unit, offset = capture_unit(captures)
    per_unit = sum(n for _, _, n in unit)
    copies = -(-min_reports // (per_unit * layers))

    def layer(k):
        for c in range(copies):
            base = START + c * offset + k * offset // layers
            for rel, pkt, n in unit:
                if k and pkt[3] == 0x02 and n == 1 and len(pkt) >= 13:
                    pkt = pkt[:8] + bytes([pkt[8] ^ k]) + pkt[9:]  # address: bytes 7..12, FF first
                yield base + rel, pkt

    size = write_capture(out, heapq.merge(*(layer(k) for k in range(layers)), key=lambda e: e[0]))
    span = (copies * offset - 1_000_000 + (layers - 1) * offset // layers) / 1e6
    print(
        "reports=%d records=%d bytes=%d span_s=%.1f copies=%d layers=%d"
        % (per_unit * copies * layers, len(unit) * copies * layers, size, span, copies, layers)
    )


def cmd_random(out, count):
    rng = random.Random(7)  # fixed seed: the same file in every run
    seen = set()

    def frames():
        for i in range(count):
            while True:
                a = rng.getrandbits(48) | (0b11 << 46)  # random static address: top two bits set
                if a not in seen:
                    seen.add(a)
                    break
            addr_le = a.to_bytes(6, "little")
            temp = rng.randint(-10 * 256, 35 * 256) & 0xFFFF
            hum = rng.randint(20 * 256, 90 * 256)
            # 02 01 06 flags; 10 16 E1 FF A1 01 battery temp(BE) hum(BE) MAC(LE): Minew MM-BLEBC7.
            ad = bytes([0x02, 0x01, 0x06, 0x10, 0x16, 0xE1, 0xFF, 0xA1, 0x01, 100])
            ad += struct.pack(">HH", temp, hum) + addr_le
            body = bytes([0x02, 0x01, 0x00, 0x01]) + addr_le + bytes([len(ad)]) + ad + bytes([0xC4])
            yield START + i * 10_000, bytes([0x04, 0x3E, len(body)]) + body

    size = write_capture(out, frames())
    print("reports=%d records=%d bytes=%d" % (count, count, size))


def main(argv):
    if len(argv) >= 5 and argv[1] == "repeat":
        cmd_repeat(argv[2], int(argv[3]), argv[4:])
    elif len(argv) >= 6 and argv[1] == "scene":
        cmd_scene(argv[2], int(argv[3]), int(argv[4]), argv[5:])
    elif len(argv) == 4 and argv[1] == "random":
        cmd_random(argv[2], int(argv[3]))
    else:
        print(__doc__, file=sys.stderr)
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
