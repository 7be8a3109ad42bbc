#!/usr/bin/env python3
"""
Virtual BLE world for blesensor-log's scanner tests, built on Google Bumble (PyPI bumble==0.0.236).

* One controller, "scanner", served as an H4 byte stream on a TCP server at 127.0.0.1 (an
  ephemeral port unless --port). The port is printed on stdout as the first line: "PORT <n>".
  blesensor-log connects to it with --hci tcp:127.0.0.1:<n>.
* Advertiser controllers on the same bumble.link.LocalLink, each driven by a Bumble Device:
    - MM-BLEBC7 (A4:C1:38:BC:07:01): service data 0xFFE1, frame a1 01, battery 100 %, humidity 50 %;
      the temperature starts at +2.50 °C and falls 0.5 °C a second down to -3.00 °C, then starts
      over (s8.8 big-endian: -0.5 °C is ff 80).
    - pvvx custom format (A4:C1:38:11:22:33): service data 0x181A, 15 bytes: MAC (LE), temperature
      s16 LE 0.01 °C = 23.45, humidity u16 LE 0.01 % = 45.67, battery 2950 mV, 87 %, counter, flags.
    - BTHome v2 (5C:C5:00:00:00:03): service data 0xFCD2, 40 | 01 5a | 02 d2 04 | 03 38 11 ->
      battery 90 %, 12.34 °C, 44.08 %.

Modes (combinable):
  --legacy-only        the scanner controller has no LE Extended Advertising feature and does not
                       list the extended scan commands: legacy scanning, 0x02 reports.
  --legacy-disallowed  legacy LE Set Scan Parameters / Enable answer Command Disallowed (0x0C), and
                       the supported-commands field lists only the legacy set, so a scanner must fall
                       back to the extended commands by itself.
  --pty PATH           serve the scanner controller on a pseudo-terminal instead of TCP, with a
                       symbolic link to it at PATH (printed as "PTY PATH"): the serial:PATH transport.
  --drop-after S       S seconds after a client connects, drop its TCP connection and forget the
                       scan state (as a re-plugged controller would); the server keeps accepting.
                       --drop-count N repeats it N times (default 1).
  --scan-off-after S   S seconds after the client connects, stop scanning without telling the host
                       (as another program switching it off would): the scanner's silence watchdog
                       must switch it on again.
  --hardware-error-after S
                       S seconds after the client connects, stop scanning and send a Hardware Error
                       event (code 0x42): the scanner must reset and re-arm.
  --button-presses N   a BTHome v2 button (5C:C5:00:00:00:04) pressed N times (press, double_press,
                       long_press, …) 1.5 s apart from 2 s after a client connects, each press a new
                       packet id heard for 0.8 s, then a "none" frame; printed as "PRESS k NAME at T".

Bumble quirks that matter (see ../shared/vm-e2e/README.md): with the extended-advertising feature
bit set, the scanner controller answers a *legacy* scan with extended reports (0x0D); every
advertisement is reported twice (ADV_IND + SCAN_RSP); RSSI is always -50; HCI_Reset is a no-op
upstream, so ResettingController makes it stop scanning the way a real controller does.

Stops on SIGTERM/SIGINT, or after --lifetime seconds (default 300) so a crashed test run cannot
leave it behind.
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
from bumble.device import Device
from bumble.host import Host
from bumble.link import LocalLink
from bumble.transport.common import AsyncPipeSink
from bumble.transport.pty import open_pty_transport
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket

EXT_FEATURES = hci.LeFeatureMask.LE_EXTENDED_ADVERTISING | hci.LeFeatureMask.LE_PERIODIC_ADVERTISING
EXT_SCAN_COMMANDS = {hci.HCI_LE_SET_EXTENDED_SCAN_PARAMETERS_COMMAND, hci.HCI_LE_SET_EXTENDED_SCAN_ENABLE_COMMAND}
# The kernel refuses a controller without an address (vm-e2e finding 4); keep ours non-zero too.
SCANNER_ADDR = 'F0:F0:F0:00:00:01'

MINEW_ADDR = 'A4:C1:38:BC:07:01'
PVVX_ADDR = 'A4:C1:38:11:22:33'
BTHOME_ADDR = '5C:C5:00:00:00:03'

log = logging.getLogger('virtual_controller')


def mac_le(addr: str) -> bytes:
    return bytes(reversed(bytes.fromhex(addr.replace(':', ''))))


def minew_temperature(t: float) -> float:
    """+2.50 at t=0, -0.5 per second, down to -3.00, then again (12 steps)."""
    return 2.5 - 0.5 * (int(t) % 12)


def minew_adv(temp_c: float) -> bytes:
    frame = bytes([0xA1, 0x01, 100]) + struct.pack('>hH', round(temp_c * 256), 50 * 256) + mac_le(MINEW_ADDR)
    return bytes(AdvertisingData([
        (AdvertisingData.FLAGS, bytes([0x06])),
        (AdvertisingData.SERVICE_DATA_16_BIT_UUID, struct.pack('<H', 0xFFE1) + frame),
    ]))


def pvvx_adv(counter: int) -> bytes:
    frame = mac_le(PVVX_ADDR) + struct.pack('<hHHBBB', 2345, 4567, 2950, 87, counter & 0xFF, 0x04)
    return bytes(AdvertisingData([
        (AdvertisingData.FLAGS, bytes([0x06])),
        (AdvertisingData.SERVICE_DATA_16_BIT_UUID, struct.pack('<H', 0x181A) + frame),
    ]))


def bthome_adv() -> bytes:
    frame = bytes([0x40, 0x01, 90, 0x02]) + struct.pack('<h', 1234) + bytes([0x03]) + struct.pack('<H', 4408)
    return bytes(AdvertisingData([
        (AdvertisingData.FLAGS, bytes([0x06])),
        (AdvertisingData.SERVICE_DATA_16_BIT_UUID, struct.pack('<H', 0xFCD2) + frame),
        (AdvertisingData.COMPLETE_LOCAL_NAME, b'BTHome-test'),
    ]))


BUTTON_ADDR = '5C:C5:00:00:00:04'
BUTTON_NAMES = {0x01: 'press', 0x02: 'double_press', 0x04: 'long_press'}


def button_adv(packet_id: int, code: int) -> bytes:
    """A BTHome v2 button (trigger-based, info 0x44): packet id, battery, button event."""
    frame = bytes([0x44, 0x00, packet_id & 0xFF, 0x01, 80, 0x3A, code])
    return bytes(AdvertisingData([
        (AdvertisingData.FLAGS, bytes([0x06])),
        (AdvertisingData.SERVICE_DATA_16_BIT_UUID, struct.pack('<H', 0xFCD2) + frame),
    ]))


class ScannerController(Controller):
    """The controller the scanner under test talks to."""

    legacy_disallowed = False

    def on_hci_reset_command(self, command):
        # A real controller stops scanning on Reset; Bumble's handler is a no-op (TODO upstream).
        self.le_scan_enable = False
        self.filter_duplicates = False
        return super().on_hci_reset_command(command)

    def on_hci_le_set_scan_parameters_command(self, command):
        if self.legacy_disallowed:
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.COMMAND_DISALLOWED_ERROR)
        return super().on_hci_le_set_scan_parameters_command(command)

    def on_hci_le_set_scan_enable_command(self, command):
        if self.legacy_disallowed:
            return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.COMMAND_DISALLOWED_ERROR)
        return super().on_hci_le_set_scan_enable_command(command)

    def on_hci_command_packet(self, command):
        log.info('command %s', command.name)
        return super().on_hci_command_packet(command)


async def start_advertiser(link: LocalLink, name: str, address: str, data: bytes, interval_ms: int):
    ctrl = Controller(name, link=link, public_address=address)
    # Legacy advertising only: Bumble then delivers our data through le_legacy_advertiser, which can
    # be changed while it runs (FACTS.md).
    ctrl.le_features &= ~EXT_FEATURES
    device = Device(name=name, host=Host(ctrl, AsyncPipeSink(ctrl)))
    await device.power_on()
    await device.start_advertising(
        own_address_type=hci.OwnAddressType.PUBLIC,
        advertising_data=data,
        advertising_interval_min=interval_ms,
        advertising_interval_max=interval_ms,
    )
    return ctrl, device


async def main_async(args) -> int:
    if args.pty:
        transport = await open_pty_transport(args.pty)
        port = None
    else:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(('127.0.0.1', args.port))
        sock.listen(4)
        port = sock.getsockname()[1]
        transport = await open_tcp_server_transport_with_socket(sock)
    link = LocalLink()
    scanner = ScannerController('scanner', host_source=transport.source, host_sink=transport.sink,
                                link=link, public_address=SCANNER_ADDR)
    scanner.supported_commands = set(Controller.supported_commands)
    if args.legacy_only:
        scanner.le_features &= ~EXT_FEATURES
    elif not args.legacy_disallowed:
        scanner.supported_commands |= EXT_SCAN_COMMANDS
    scanner.legacy_disallowed = args.legacy_disallowed

    t0 = time.monotonic()
    minew_ctrl, _ = await start_advertiser(link, 'MM-BLEBC7', MINEW_ADDR, minew_adv(minew_temperature(0)),
                                           args.adv_interval)
    pvvx_ctrl, _ = await start_advertiser(link, 'ATC_112233', PVVX_ADDR, pvvx_adv(0), args.adv_interval)
    await start_advertiser(link, 'BTHome-test', BTHOME_ADDR, bthome_adv(), args.adv_interval)
    button_ctrl = None
    if args.button_presses:
        button_ctrl, _ = await start_advertiser(link, 'BTHome-button', BUTTON_ADDR, button_adv(0, 0), args.adv_interval)

    print(f'PTY {args.pty}' if args.pty else f'PORT {port}', flush=True)
    log.info('listening on %s (H4); modes: legacy_only=%s legacy_disallowed=%s drop_after=%s',
             args.pty or f'127.0.0.1:{port}', args.legacy_only, args.legacy_disallowed, args.drop_after)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for s in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(s, stop.set)

    async def update_readings():
        n = 0
        while True:
            await asyncio.sleep(1)
            n += 1
            minew_ctrl.le_legacy_advertiser.advertising_data = minew_adv(minew_temperature(time.monotonic() - t0))
            pvvx_ctrl.le_legacy_advertiser.advertising_data = pvvx_adv(n)

    async def dropper():
        drops = 0
        while drops < args.drop_count:
            # Wait for a client, then give it drop_after seconds.
            while transport.sink.transport is None:
                await asyncio.sleep(0.05)
            await asyncio.sleep(args.drop_after)
            client = transport.sink.transport
            if client is None:
                continue
            drops += 1
            # The controller "restarts": scanning off, half-received command forgotten.
            scanner.le_scan_enable = False
            transport.source.parser.reset()
            transport.sink.transport = None
            client.close()
            # Wall-clock time, so tests can compare it with the scanner's reading time stamps.
            print(f'DROPPED {drops} at {time.time():.6f}', flush=True)
            log.info('dropped the client connection (%d of %d)', drops, args.drop_count)

    async def after_connect(delay, action, what):
        while transport.sink.transport is None:
            await asyncio.sleep(0.05)
        await asyncio.sleep(delay)
        action()
        print(f'{what} at {time.time():.6f}', flush=True)
        log.info('%s', what)

    def scan_off():
        scanner.le_scan_enable = False

    def hardware_error():
        scanner.le_scan_enable = False
        # Bumble has no Hardware Error event class: H4 bytes 04 | 10 01 | code.
        transport.sink.on_packet(bytes([0x04, 0x10, 0x01, 0x42]))

    async def press_buttons():
        # Once a client is there: every 1.5 s a press (a new packet id, advertised for 0.8 s, so
        # the scanner hears it several times), then a "none" frame with a new id.
        while transport.sink.transport is None:
            await asyncio.sleep(0.05)
        await asyncio.sleep(2)
        packet_id = 1
        codes = list(BUTTON_NAMES)
        for k in range(args.button_presses):
            code = codes[k % len(codes)]
            packet_id += 1
            button_ctrl.le_legacy_advertiser.advertising_data = button_adv(packet_id, code)
            print(f'PRESS {k + 1} {BUTTON_NAMES[code]} at {time.time():.6f}', flush=True)
            await asyncio.sleep(0.8)
            packet_id += 1
            button_ctrl.le_legacy_advertiser.advertising_data = button_adv(packet_id, 0)
            await asyncio.sleep(0.7)

    tasks = [asyncio.create_task(update_readings())]
    if args.button_presses:
        tasks.append(asyncio.create_task(press_buttons()))
    if args.scan_off_after is not None:
        tasks.append(asyncio.create_task(after_connect(args.scan_off_after, scan_off, 'SCAN_OFF')))
    if args.hardware_error_after is not None:
        tasks.append(asyncio.create_task(after_connect(args.hardware_error_after, hardware_error, 'HARDWARE_ERROR')))
    if args.drop_after is not None and not args.pty:
        tasks.append(asyncio.create_task(dropper()))
    try:
        await asyncio.wait_for(stop.wait(), timeout=args.lifetime)
    except asyncio.TimeoutError:
        log.warning('lifetime of %s s reached; exiting', args.lifetime)
    for t in tasks:
        t.cancel()
    if args.pty:
        await transport.close()
    else:
        transport.server.close()
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--port', type=int, default=0, help='TCP port (default: ephemeral)')
    p.add_argument('--pty', default=None, metavar='PATH', help='serve on a pseudo-terminal linked at PATH')
    p.add_argument('--legacy-only', action='store_true')
    p.add_argument('--legacy-disallowed', action='store_true')
    p.add_argument('--drop-after', type=float, default=None, metavar='S')
    p.add_argument('--drop-count', type=int, default=1, metavar='N')
    p.add_argument('--scan-off-after', type=float, default=None, metavar='S')
    p.add_argument('--hardware-error-after', type=float, default=None, metavar='S')
    p.add_argument('--adv-interval', type=int, default=100, help='advertising interval, ms')
    p.add_argument('--button-presses', type=int, default=0, metavar='N',
                   help='a BTHome button (%s) pressed N times, 1.5 s apart, from 2 s after a client connects' % BUTTON_ADDR)
    p.add_argument('--lifetime', type=float, default=300, help='exit after this many seconds')
    p.add_argument('-v', '--verbose', action='store_true', help='log commands (and Bumble debug with -vv)')
    args = p.parse_args()
    # A parent may start us with SIGTERM/SIGINT blocked (Foundation's Process under a test runner
    # does): unblock them, or the stop request would never arrive.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    level = logging.INFO if args.verbose else logging.WARNING
    logging.basicConfig(level=level, stream=sys.stderr,
                        format='%(relativeCreated)9.1f %(name)s %(levelname)s: %(message)s')
    return asyncio.run(main_async(args))


if __name__ == '__main__':
    sys.exit(main())
