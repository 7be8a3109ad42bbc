#!/usr/bin/env python3
"""
VM test of GATT remotes and actions: the real `blesensor-log run --hci hci0 --actions FILE` in the
QEMU guest, connecting through the guest kernel to an RFduino BLE remote played by Bumble.

    host                                                   QEMU guest (TCG), Debian's stock kernel
    Bumble "RFduino" (service 0x2220, notify 0x2221) --+    blesensor-log run --hci hci0 --actions
    Bumble "MM-BLEBC7" advertiser ---------------------+      L2CAP ATT socket -> kernel -> hci0
    Bumble controller "guest-hci0" <-- LocalLink ------+      rules: notify 00 -> next, 01 -> previous
       H4 over 127.0.0.1:<ephemeral> <-- QEMU chardev --> ttyS1 -> hci_uart -> hci0

Once the guest subscribes, the remote notifies 00 (next) and 01 (previous) a second apart, then drops
the link as a remote going out of range does, advertises again, and after the guest has reconnected
and subscribed once more notifies 00 and 01 again. The guest prints:
    ACTION: next|previous   each command as it runs (its stdout is the console)
    BSL-ERR: ...            the logger's stderr (its GATT lines say when it subscribed)
    PLAYER: ...             /tmp/player, the file the commands appended to, at the end
    EVENTS: ...             `export --events --csv`
    READINGS: N             rows `export --csv` gives: the passive scan of the MM-BLEBC7 went on
    LAST-READING: T         the time of the last of them (the guest's clock is the host's: QEMU's RTC)
Checks: the file holds next, previous, next, previous; the events table the four notifications; the
logger exited 0; readings were stored, the last after the reconnection (the kernel stops the
scan at each connection; the logger must switch it on again each time). Reconnect time: the remote's drop to the guest's new
subscription on the host clock, and the logger's own figure ("... again, X s after the link was
lost").

Bumble 0.0.236's LocalLink sends LE ACL data from the sender's random address, 00:00:00:00:00:00
when it has none, so a central connected by its public address never gets ATT traffic; `PublicLink`
sends from the address the peer's connection is keyed by (../../../shared/vm-e2e/gatt/README.md).
"""
import argparse
import asyncio
import datetime
import re
import sys
import time

from bumble import hci
from bumble.controller import Controller
from bumble.core import AdvertisingData, PhysicalTransport
from bumble.device import Device
from bumble.gatt import Characteristic, Service
from bumble.host import Host
from bumble.link import LocalLink
from bumble.transport.common import AsyncPipeSink

from vm_host import (DEFAULT_INITRD, DEFAULT_KERNEL, SENSOR_ADDR as SENSOR, boot_and_read, guest_controller,
                     legacy_only, minew_adv, qemu_command)

REMOTE = 'C0:98:E5:00:00:01'
EXPECTED_PLAYER = ['next', 'previous', 'next', 'previous']


class PublicLink(LocalLink):
    """LE ACL data from whichever of the sender's addresses the receiver's connection is keyed by."""

    def send_acl_data(self, sender_controller, destination_address, transport, data):
        if transport != PhysicalTransport.LE:
            return super().send_acl_data(sender_controller, destination_address, transport, data)
        dest = self.find_le_controller(destination_address)
        if dest is None:
            return
        src = sender_controller.random_address
        if src not in dest.le_connections:
            src = sender_controller.public_address
        asyncio.get_running_loop().call_soon(lambda: dest.on_link_acl_data(src, transport, data))


async def run(args) -> int:
    t0 = time.monotonic()
    link = PublicLink()
    transport, guest, port = await guest_controller(link)
    rctl = Controller('rfduino', link=link, public_address=REMOTE)
    sctl = Controller('sensor', link=link, public_address=SENSOR)
    legacy_only(guest, rctl, sctl)
    remote = Device(name='RFduino', host=Host(rctl, AsyncPipeSink(rctl)))
    char = Characteristic('2221', Characteristic.Properties.READ | Characteristic.Properties.NOTIFY,
                          Characteristic.READABLE, bytes([0xFF]))
    remote.add_services([Service('2220', [char])])
    sensor = Device(name='MM-BLEBC7', host=Host(sctl, AsyncPipeSink(sctl)))
    await remote.power_on()
    await sensor.power_on()
    await sensor.start_advertising(own_address_type=hci.OwnAddressType.PUBLIC, advertising_data=minew_adv(21.5),
                                   advertising_interval_min=200, advertising_interval_max=200)
    adv = bytes(AdvertisingData([(AdvertisingData.FLAGS, bytes([0x06])),
                                 (AdvertisingData.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS, bytes([0x20, 0x22])),
                                 (AdvertisingData.COMPLETE_LOCAL_NAME, b'RFduino')]))
    now = lambda: time.monotonic() - t0
    host = {'round': 0, 'sent': [], 'subscribed': [], 'dropped': None, 'resubscribed_wall': None}

    async def press_round(conn, rnd):
        await asyncio.sleep(1.0)
        for v in (0x00, 0x01):
            await remote.notify_subscribers(char, bytes([v]))
            host['sent'].append((now(), v))
            print(f'{now():8.3f} | HOST: round {rnd} notified {v:02x}', flush=True)
            await asyncio.sleep(1.0)
        if rnd == 1:
            host['dropped'] = now()
            print(f'{now():8.3f} | HOST: the remote drops the link', flush=True)
            await conn.disconnect()

    def on_subscription(conn, notify, indicate):
        print(f'{now():8.3f} | HOST: subscription notify={notify}', flush=True)
        if notify and host['round'] < 2:
            host['round'] += 1
            host['subscribed'].append(now())
            if host['round'] == 2:
                host['resubscribed_wall'] = time.time()
            asyncio.get_running_loop().create_task(press_round(conn, host['round']))

    char.on('subscription', on_subscription)
    await remote.start_advertising(own_address_type=hci.OwnAddressType.PUBLIC, advertising_data=adv, auto_restart=True,
                                   advertising_interval_min=100, advertising_interval_max=100)
    cmd = qemu_command(args.kernel, args.initrd, port, f'vm_mode=gatt vm_duration={args.duration}')
    lines = []

    def on_line(t, s):
        lines.append((t, s))
        if re.match(r'^(VM|BSL-ERR|ACTION|PLAYER|EVENTS|READINGS|LAST-READING):', s):
            print(f'{t:8.3f} | {s}', flush=True)

    timed_out = await boot_and_read(cmd, transport, on_line, now, args.timeout, args.log)

    fails = ['timeout'] if timed_out else []
    text = [s for _, s in lines]
    player = [s[8:] for s in text if s.startswith('PLAYER: ')]
    actions = [(t, s[8:]) for t, s in lines if s.startswith('ACTION: ')]
    events = [s[8:] for s in text if s.startswith('EVENTS: ')]
    readings = next((int(s.split()[1]) for s in text if s.startswith('READINGS: ')), 0)
    last_text = next((s[14:] for s in text if s.startswith('LAST-READING: ')), '')
    try:
        last_reading = datetime.datetime.fromisoformat(last_text.replace('Z', '+00:00')).timestamp()
    except ValueError:
        last_reading = None
    exit_line = next((s for s in text if s.startswith('VM: scan-exit')), '')
    if 'rc=0' not in exit_line:
        fails.append(f'blesensor-log run did not exit 0: {exit_line or "no exit marker"}')
    if player != EXPECTED_PLAYER:
        fails.append(f'the commands appended {player}, expected {EXPECTED_PLAYER}')
    if [a for _, a in actions] != EXPECTED_PLAYER:
        fails.append(f'the commands ran as {[a for _, a in actions]}')
    # Each command after its notification, before the next one.
    sent_times = [t for t, _ in host['sent']]
    for i, (t, a) in enumerate(actions[:len(sent_times)]):
        if t < sent_times[i] or (i + 1 < len(sent_times) and t > sent_times[i + 1]):
            fails.append(f'command {i} ({a}) ran at {t:.2f}s, outside its notification window')
    rows = [e.split(',') for e in events[1:]]
    if events[:1] != ['time,address,alias,model,event,value'] or \
            [(r[1], r[4], r[5]) for r in rows] != [(REMOTE, 'notify', v) for v in ('00', '01', '00', '01')]:
        fails.append(f'export --events gave {events}')
    if readings < 5:
        fails.append(f'{readings} readings stored: the passive scan did not go on beside the GATT link')
    if host['resubscribed_wall'] is None or last_reading is None or last_reading < host['resubscribed_wall'] + 1:
        fails.append(f'the last reading ({last_text or "none"}) is not from after the reconnection: the scan stopped')
    logger_again = next((float(m.group(1)) for s in text if (m := re.search(r'subscribed to 2221 again, ([0-9.]+) s', s))), None)
    logger_first = next((float(m.group(1)) for s in text if (m := re.search(r'subscribed to 2221 after ([0-9.]+) s', s))), None)
    if logger_again is None:
        fails.append('the logger never said it subscribed again after the drop')
    reconnect = host['subscribed'][1] - host['dropped'] if len(host['subscribed']) > 1 and host['dropped'] else None
    delays = [t - sent_times[i] for i, (t, _) in enumerate(actions[:len(sent_times)])]
    for f in fails:
        print(f'FAIL: {f}')
    fmt = lambda x: '-' if x is None else f'{x:.2f}'
    print(f'SUMMARY mode=gatt result={"FAIL" if fails else "PASS"} first_subscribe_logger={fmt(logger_first)} '
          f'reconnect_host={fmt(reconnect)} reconnect_logger={fmt(logger_again)} '
          f'notify_to_command_ms={",".join(f"{d * 1000:.0f}" for d in delays)} readings={readings} wall={now():.1f}',
          flush=True)
    return 1 if fails else 0


def main():
    p = argparse.ArgumentParser(description='One VM run of blesensor-log run --actions with a GATT remote.')
    p.add_argument('--kernel', default=DEFAULT_KERNEL)
    p.add_argument('--initrd', default=DEFAULT_INITRD)
    p.add_argument('--duration', type=int, default=20, help="the logger's --duration")
    p.add_argument('--timeout', type=float, default=120)
    p.add_argument('--log', help='the whole console, with host times')
    p.add_argument('--quiet', action='store_true', help='(accepted for scripts/test-vm; output is already terse)')
    return asyncio.run(run(p.parse_args()))


if __name__ == '__main__':
    sys.exit(main())
