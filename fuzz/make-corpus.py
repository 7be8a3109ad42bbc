#!/usr/bin/env python3
"""Writes the seed corpus of each fuzz target under fuzz/corpus/NAME/ (committed).

Seeds are ours: the capture fixtures in fixtures/captures/, and frames built here from the formats
(HCI Core spec event layouts, H4 framing, the AD structure, the payload layouts the decoders read).
None comes from /work/shared. Run from the repository root; it rewrites the seed files it names and
leaves anything else in the folders alone.
"""
import os
import shutil

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def ad(t, payload):
    return bytes([len(payload) + 1, t]) + payload


def svc16(uuid, payload):
    return ad(0x16, uuid.to_bytes(2, "little") + payload)


def mfr(company, payload):
    return ad(0xFF, company.to_bytes(2, "little") + payload)


FLAGS = ad(0x01, b"\x06")
ADDR = bytes.fromhex("a4c138bc0701")  # big-endian text order

# AD payloads, one per decoder family (values made up, layouts per the decoders' formats).
ADS = {
    "minew": FLAGS + ad(0x03, b"\xe1\xff") + svc16(0xFFE1, bytes.fromhex("a10164ff803200") + ADDR[::-1]),
    "pvvx": svc16(0x181A, ADDR[::-1] + bytes.fromhex("d007c411860b5701 04")),
    "atc": svc16(0x181A, ADDR + bytes.fromhex("00e6 32 57 0b86 01")),
    "bthome_v2": FLAGS + svc16(0xFCD2, bytes.fromhex("40 0164 02ca09 03bf13")),
    "bthome_v2_enc": FLAGS + svc16(0xFCD2, bytes.fromhex("41a47266c95f730011223378237214")),
    "bthome_v1": svc16(0x181C, bytes.fromhex("2302ca09 0203bf13")),
    "mibeacon": svc16(0xFE95, bytes.fromhex("5020 5b05 01") + ADDR[::-1] + bytes.fromhex("0d1004 d200 5c02")),
    "mibeacon_enc": svc16(0xFE95, bytes.fromhex("5858 5b05 02") + ADDR[::-1] + bytes.fromhex("0102030405060708090a0b0c0d0e")),
    "mibeacon_floats": svc16(0xFE95, bytes.fromhex("5020 aa01 da 219335342d58 014c04 0000c841 084c04 00003442")),
    "qingping": svc16(0xFDCD, bytes.fromhex("8807") + ADDR[::-1] + bytes.fromhex("0104 d200 5c02 020164")),
    "eddystone_tlm": svc16(0xFEAA, bytes.fromhex("2000 0bb8 1980 00000100 00002710")),
    "ibeacon": FLAGS + mfr(0x004C, bytes.fromhex("0215") + bytes(range(16)) + bytes.fromhex("0001 0002 c5")),
    "ruuvi5": mfr(0x0499, bytes.fromhex("05 12fc 5394 c37c 0004fffc040c ac36 42 00cd") + ADDR),
    "ruuvi3": mfr(0x0499, bytes.fromhex("03 29 1a1e ce1e fc18f94202ca0b53")),
    "govee_h5075": mfr(0xEC88, bytes.fromhex("00 03 6f 7c 64 00")) + ad(0x09, b"GVH5075_1234"),
    "govee_meat": mfr(0x0001, bytes.fromhex("0001 0110 0a28 ffff 0a8c ffff 64")) + ad(0x09, b"GVH5183"),
    "inkbird_ibsth": mfr(0x0a28, bytes.fromhex("3c14 00 8a41 64 08")) + ad(0x09, b"sps"),
    "inkbird_ith": mfr(0x2449, bytes(range(14))) + ad(0x09, b"ITH-13-B"),
    "ibbq": mfr(0x0000, bytes.fromhex("0000") + ADDR[::-1] + bytes.fromhex("d200 f6ff")) + ad(0x09, b"iBBQ"),
    "thermobeacon": mfr(0x0010, bytes.fromhex("0000") + ADDR[::-1] + bytes.fromhex("b00b 5001 c002 00000000")),
    "switchbot": svc16(0x0D00, bytes.fromhex("5400 e4 06 99 2c")),
    "sensorpush": ad(0x09, b"SensorPush HT.w 1234") + mfr(0x1234, bytes.fromhex("0a0b0c0d")),
    "iam_t2": ad(0x09, b"Ink@IAM-T2") + mfr(0xAC00, bytes.fromhex("0000 00d2 01c2 0384")),
    "name_only": ad(0x09, b"=1+2,\"x\"\n"),
    "empty": b"",
    "zero_length_field": b"\x00\x00\x02\x01\x06",
}


def legacy_event(address, data, rssi=-60, event_type=0, addr_type=1):
    params = bytes([0x02, 0x01, event_type, addr_type]) + address[::-1] + bytes([len(data)]) + data
    params += bytes([rssi & 0xFF])
    return bytes([0x3E, len(params)]) + params


def extended_report(address, data, sid=1, status=0):
    props = (status << 5) | 0x10  # legacy bit off; data status in bits 5-6
    return (props.to_bytes(2, "little") + bytes([1]) + address[::-1] + bytes([1, 0, sid, 0x7F, 0xC4])
            + (0).to_bytes(2, "little") + bytes([0]) + bytes(6) + bytes([len(data)]) + data)


def extended_event(reports):
    params = bytes([0x0D, len(reports)]) + b"".join(reports)
    return bytes([0x3E, len(params)]) + params


def main():
    # decode_registry: 6 address bytes, then the AD bytes; one seed per family, two with keyed addresses.
    for name, data in ADS.items():
        put("decode_registry", name, ADDR + data)
    put("decode_registry", "bthome_keyed", bytes.fromhex("000000000001") + ADS["bthome_v2_enc"])
    put("decode_registry", "mibeacon_keyed", bytes.fromhex("000000000002") + ADS["mibeacon_enc"])

    # hci_event: length-prefixed event packets.
    events = {
        "legacy_minew": [legacy_event(ADDR, ADS["minew"])],
        "legacy_govee": [legacy_event(ADDR, ADS["govee_h5075"])],
        "legacy_two_reports": [bytes([0x3E, 2 + 2 * 10 + 3]) + bytes([0x02, 0x02])
                               + bytes([0, 0]) + ADDR + bytes([3]) + ADS["minew"][:3] + bytes([0xC4])
                               + bytes([0, 1]) + ADDR + bytes([0]) + bytes([0xB0])],
        "extended_complete": [extended_event([extended_report(ADDR, ADS["ruuvi5"])])],
        "extended_fragments": [extended_event([extended_report(ADDR, ADS["bthome_v2"][:5], status=1)]),
                               extended_event([extended_report(ADDR, ADS["bthome_v2"][5:], status=0)])],
        "extended_truncated": [extended_event([extended_report(ADDR, b"\x02\x01\x06", status=2)])],
        "command_complete": [bytes.fromhex("0e0401 0c2000")],
        "command_status": [bytes.fromhex("0f0400 010b20")],
        "hardware_error": [bytes.fromhex("100101")],
        "device_event": [bytes.fromhex("fd06 0100 0400 0000")],
        "le_meta_other": [bytes.fromhex("3e0301 0000")],
    }
    for name, packets in events.items():
        put("hci_event", name, b"".join(bytes([len(p)]) + p for p in packets))

    # h4_framer: chunk-size byte, then an H4 stream (events, ACL, garbage between).
    stream = b""
    for packets in events.values():
        for p in packets:
            stream += b"\x04" + p
    stream += bytes.fromhex("02 0120 0500 0100040001")  # ACL data
    put("h4_framer", "events_chunk1", b"\x00" + stream)
    put("h4_framer", "events_chunk17", b"\x10" + stream)
    put("h4_framer", "garbage_between", b"\x07" + b"\xff\x00\x04\x00" + stream[:40] + b"\x01\x03\x0c\x00" + stream[40:])

    # capture_reader: our committed fixtures.
    fixtures = os.path.join(os.path.dirname(ROOT), "..", "fixtures", "captures")
    for f in sorted(os.listdir(fixtures)):
        if not f.endswith(".md"):
            with open(os.path.join(fixtures, f), "rb") as src:
                put("capture_reader", f, src.read())

    # decode_line: the text `blesensor-log decode` reads.
    lines = ["# comment", ""]
    for name in ["minew", "pvvx", "bthome_v2", "govee_h5075"]:
        lines.append("A4:C1:38:BC:07:01 " + ADS[name].hex())
    for packets in events.values():
        lines.append("04 " + " ".join("%02x" % b for b in packets[0]))
        lines.append(packets[0].hex())
    lines += ["zz:zz:zz:zz:zz:zz 0201", "A4:C1:38:BC:07:01 0g", "01 03 0c 00", "\t 3e 00 \r"]
    put("decode_line", "mixed", "\n".join(lines) + "\n")
    put("decode_line", "one_address_line", "A4:C1:38:BC:07:01 " + ADS["minew"].hex() + "\n")
    put("decode_line", "fragments", "".join(p.hex() + "\n" for p in events["extended_fragments"]))

    # rules_file: the packaged example, then variants that reach each check (programs that exist,
    # so the durations after the program check are read too).
    packaging = os.path.join(os.path.dirname(ROOT), "..", "packaging")
    with open(os.path.join(packaging, "actions-rfduino-remote.json"), "rb") as src:
        put("rules_file", "rfduino_remote", src.read())
    rules = {
        "minimal": '{"rules": []}',
        "true_program": '{"rules": [{"match": {}, "run": ["/bin/true"], "cooldown": 0.5, "timeout": "1m30s"}]}',
        "all_match_keys": ('{"remotes": [{"address": "c0:98:e5:00:00:01", "service": "6e400001-b5a3-f393-e0a9-e50e24dcca9e",'
                           ' "characteristic": "0x2221"}],\n "rules": [{"match": {"sensor": "kitchen", "event": "button",'
                           ' "value": "long_press", "encrypted": false},\n  "run": ["/bin/sh", "-c", "echo \\u00e9 \\ud83d\\ude00 \\n\\t\\""],'
                           ' "cooldown": "1d", "timeout": 86400}]}'),
        "values": '[{"a": [1, -2.5e3, 0.0, true, false, null, "x"]}, {}, [], [[[[]]]], "\\/\\b\\f\\r"]',
        "duplicate_key": '{"rules": [], "rules": []}',
        "trailing_comma": '{"rules": [{"match": {}, "run": ["/bin/true"],}]}',
        "bad_event": '{"rules": [{"match": {"event": "sneeze"}, "run": ["/bin/true"]}]}',
        "deep": "[" * 40 + "]" * 40,
    }
    for name, text in rules.items():
        put("rules_file", name, text + "\n")

    # config_file: the packaged file, then the syntax's cases over the keys the harness's spec has.
    with open(os.path.join(packaging, "blesensor-log.conf"), "rb") as src:
        put("config_file", "packaged", src.read())
    configs = {
        "settings": "interval = 30s\nhci = hci0\nhci=00:1A:7D:DA:71:13\nverbose\nmqtt-retain = off  # why\n",
        "quoted": 'hci = "a # b "  # comment\nverbose = "yes"\n\t interval\t=\t"" \n',
        "crlf": "# windows\r\nhci = hci1\r\n\r\nverbose = 1\r\n",
        "unknown_key": "db = /tmp/x.db\n",
        "twice": "verbose = true\nverbose = false\n",
        "bad_flag": "verbose = maybe\n",
        "unclosed_quote": 'hci = "hci0\n',
        "after_quote": 'hci = "hci0" hci1\n',
        "not_a_key": "Interval: 60\n",
        "config_key": "config = /etc/other.conf\n",
    }
    for name, text in configs.items():
        put("config_file", name, text)


main()
