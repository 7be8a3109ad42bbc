#!/usr/bin/env python3
"""
A crowded virtual BLE world for `scripts/soak` (a benchmark, not a test), built on Bumble like
virtual_controller.py, whose scanner controller it reuses.

* One scanner controller served as H4 on 127.0.0.1 (ephemeral port, printed first: "PORT <n>"),
  legacy-only: one LE Advertising Report event per report.
* --devices N advertisers (default 240), each a Bumble Controller with its legacy advertiser
  running (set up directly, without a host stack: 240 host stacks take minutes to power on), every
  --adv-interval ms (default 100), on a link that carries their advertising PDUs to the scanner
  only (Bumble's LocalLink hands each PDU to every controller, N² work for N advertisers):
  BTHome v2 service data (0xFCD2) with a packet id, a temperature and a humidity that change every
  second, so every second of every device is a new reading. One in --random-every (default 4) uses
  a random static address (C0:… with the two top bits set), the rest public ones (A4:C1:38:…).
  Bumble reports each advertisement twice (ADV_IND + SCAN_RSP; see virtual_controller.py): the
  logger folds the second as a duplicate.
* Every 10 s, and on exit, one line on stdout: "SENT <reports> <seconds>": the advertising reports
  the scanner controller has sent to its host, and since when it has been scanning.

Several worlds (--first: each its own address range) make several controllers, which a logger
scans together (`run --hci tcp:… --hci tcp:…`): one Python process cannot emulate thousands of
advertisements a second on a loaded machine, several can.

Stops on SIGTERM/SIGINT or after --lifetime seconds.
"""
import argparse
import asyncio
import logging
import signal
import socket
import struct
import sys
import time

from bumble import hci
from bumble.controller import Controller
from bumble.core import AdvertisingData
from bumble.link import LocalLink
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket

from virtual_controller import EXT_FEATURES, SCANNER_ADDR, ScannerController


def address(i: int, random: bool) -> str:
    # Random static: the two most significant bits set (Core Vol 6 Part B §1.3.2.1).
    head = [0xC0 | (i >> 16 & 0x3F), 0x5A, 0x5A] if random else [0xA4, 0xC1, 0x38]
    return ':'.join(f'{b:02X}' for b in head + [i >> 16 & 0xFF, i >> 8 & 0xFF, i & 0xFF])


def bthome(packet_id: int, temp_c: float, humidity: float) -> bytes:
    frame = bytes([0x40, 0x00, packet_id & 0xFF, 0x02]) + struct.pack('<h', round(temp_c * 100)) \
        + bytes([0x03]) + struct.pack('<H', round(humidity * 100))
    return bytes(AdvertisingData([
        (AdvertisingData.FLAGS, bytes([0x06])),
        (AdvertisingData.SERVICE_DATA_16_BIT_UUID, struct.pack('<H', 0xFCD2) + frame),
    ]))


class ScannerOnlyLink(LocalLink):
    """Advertising PDUs go to the scanner controller alone (no advertiser listens to another)."""
    scanner = None

    def send_advertising_pdu(self, sender_controller, packet):
        if self.scanner is not None and sender_controller is not self.scanner:
            asyncio.get_running_loop().call_soon(self.scanner.on_ll_advertising_pdu, packet)


class CountingScanner(ScannerController):
    """Counts the reports it sends while a host is connected (none reach a host that has gone)."""
    reports = 0
    scanning_since = None
    host = None  # the TCP server transport's sink: .transport is the connected client, or None

    def send_hci_packet(self, packet):
        if isinstance(packet, hci.HCI_LE_Advertising_Report_Event) and self.host.transport is not None:
            self.reports += len(packet.reports)
            if self.scanning_since is None:
                self.scanning_since = time.monotonic()
        return super().send_hci_packet(packet)


def start_advertiser(link, i, random, interval_ms):
    addr = address(i, random)
    ctrl = Controller(f'dev{i}', link=link, public_address=address(i, False))
    ctrl.le_features &= ~EXT_FEATURES
    adv = ctrl.le_legacy_advertiser
    if random:
        ctrl.random_address = hci.Address(addr, hci.Address.RANDOM_DEVICE_ADDRESS)
        adv.own_address_type = hci.Address.RANDOM_DEVICE_ADDRESS
    else:
        adv.own_address_type = hci.Address.PUBLIC_DEVICE_ADDRESS
    adv.advertising_type = hci.HCI_LE_Set_Advertising_Parameters_Command.AdvertisingType.ADV_IND
    adv.advertising_interval_min = adv.advertising_interval_max = interval_ms  # the timer reads ms
    adv.advertising_data = bthome(0, 20 + i % 10, 40 + i % 20)
    adv.start()
    return ctrl


async def main_async(args) -> int:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', 0))
    sock.listen(1)
    transport = await open_tcp_server_transport_with_socket(sock)
    link = ScannerOnlyLink()
    scanner = CountingScanner('scanner', host_source=transport.source, host_sink=transport.sink, link=link,
                              public_address=SCANNER_ADDR)
    scanner.supported_commands = set(Controller.supported_commands)
    scanner.le_features &= ~EXT_FEATURES
    scanner.host = transport.sink
    link.scanner = scanner
    ctrls = [start_advertiser(link, i, i % args.random_every == 0, args.adv_interval)
             for i in range(args.first, args.first + args.devices)]
    print(f'PORT {sock.getsockname()[1]}', flush=True)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for s in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(s, stop.set)

    def sent():
        since = 0.0 if scanner.scanning_since is None else time.monotonic() - scanner.scanning_since
        print(f'SENT {scanner.reports} {since:.1f}', flush=True)

    async def update():
        n = 0
        while True:
            await asyncio.sleep(1)
            n += 1
            for i, c in enumerate(ctrls, start=args.first):
                # A new packet id and values each second: a new reading, not a duplicate.
                c.le_legacy_advertiser.advertising_data = bthome(n, 20 + (i + n) % 10 + 0.01 * (n % 100), 40 + (i + n) % 20)
            if n % 10 == 0:
                sent()

    task = asyncio.create_task(update())
    try:
        await asyncio.wait_for(stop.wait(), timeout=args.lifetime)
    except asyncio.TimeoutError:
        pass
    task.cancel()
    sent()
    transport.server.close()
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--devices', type=int, default=240)
    p.add_argument('--first', type=int, default=0, help='number of the first device (its address), for several worlds')
    p.add_argument('--adv-interval', type=int, default=100, help='advertising interval, ms')
    p.add_argument('--random-every', type=int, default=4, help='every Nth device has a random static address')
    p.add_argument('--lifetime', type=float, default=7200)
    args = p.parse_args()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    return asyncio.run(main_async(args))


if __name__ == '__main__':
    sys.exit(main())
