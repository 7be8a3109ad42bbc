#!/usr/bin/env python3
"""
Host side of the VM end-to-end test: the real `blesensor-log scan` against a real Linux kernel.

    host (no Bluetooth in its kernel)                     QEMU guest (TCG), Debian's stock kernel
    Bumble advertiser "MM-BLEBC7" --LocalLink--+          /init (guest-init.sh)
    Bumble controller "guest-hci0"  <----------+          blesensor-log scan --hci hci0 --json
       H4 over 127.0.0.1:<ephemeral> <-- QEMU chardev --> ttyS1 -> hci_uart (N_HCI, H4) -> hci0

This script runs one test: it starts both Bumble controllers, boots the guest, reads the guest
console (ttyS0), changes the advertised temperature at fixed points of the run, and then checks what
the guest printed. The guest decides nothing; it only prints:
    {...}                 a reading (blesensor-log's stdout goes straight to the console)
    BSL-ERR: ...          blesensor-log's stderr
    VM: <event> ...       markers around each action (scan-start, down-begin 1, up-done 1, ...)

Changing the temperature is how the test tells fresh readings from stale ones: after "down-done k"
the advertiser switches to a value never sent before, so a reading with that value proves the
scanner received it after hci0 went down, i.e. that scanning recovered. Two of the values are
negative (the Minew frame's signed 8.8 temperature). Recovery time = first reading with the new value
minus the moment the guest began `hcictl up`, both taken from host clock stamps on console lines.

Exit status 0 only if every check passed; the last line is "SUMMARY mode=... result=PASS|FAIL ...".
The guest controller, QEMU and the console loop are vm_host.py's (shared with vm_gatt_test.py).
"""
import argparse
import asyncio
import datetime
import json
import logging
import sys
import time

from bumble import hci
from bumble.controller import Controller
from bumble.device import Device
from bumble.host import Host
from bumble.link import LocalLink
from bumble.transport.common import AsyncPipeSink

from vm_host import (DEFAULT_INITRD, DEFAULT_KERNEL, GUEST_CTRL_ADDR, SENSOR_ADDR as ADVERTISER, boot_and_read,
                     guest_controller, kvm_usable, legacy_only, minew_adv as adv_data, qemu_command)

# Temperatures the advertiser sends, phase by phase. 0x1780/256 = 23.5, 0xF8C0 = -7.25, 0xFF80 = -0.5:
# the last one has a high byte of 0xFF, the case an unsigned reading turns into 255.5.
TEMPS = [23.5, -7.25, -0.5]
EXPECTED = {'address': ADVERTISER, 'model': 'MM-BLEBC7', 'battery_pct': 100, 'humidity_pct': 50.0}
MIN_READINGS = 3          # per phase
# adapter mode: from ours registered as hci1 to its first reading, following the kernel's device
# event (a few hundred ms under TCG); the scanner's fallback poll alone takes 4-6 s.
RENUMBER_MAX_S = 3.0


class ScanCommandLog:
    """Every HCI command the guest sends to the emulated controller, and the scan types it asked for
    (0 = passive). The kernel itself never scans without bluetoothd, so these are the scanner's."""

    def __init__(self, ctrl: Controller):
        self.counts = {}
        self.scan_types = []
        self.unsupported = set()
        orig_packet, orig_unsupported = ctrl.on_hci_command_packet, ctrl.on_hci_command

        def on_packet(cmd):
            self.counts[cmd.name] = self.counts.get(cmd.name, 0) + 1
            if isinstance(cmd, hci.HCI_LE_Set_Scan_Parameters_Command):
                self.scan_types.append(cmd.le_scan_type)
            elif isinstance(cmd, hci.HCI_LE_Set_Extended_Scan_Parameters_Command):
                self.scan_types.extend(cmd.scan_types)
            return orig_packet(cmd)

        def on_unsupported(cmd):
            self.unsupported.add(cmd.name)
            return orig_unsupported(cmd)

        ctrl.on_hci_command_packet = on_packet
        ctrl.on_hci_command = on_unsupported


async def start_bumble(adv_interval_ms):
    link = LocalLink()
    transport, guest_ctrl, port = await guest_controller(link)
    adv_ctrl = Controller('advertiser', link=link, public_address=ADVERTISER)
    legacy_only(guest_ctrl, adv_ctrl)
    log = ScanCommandLog(guest_ctrl)
    device = Device(name='MM-BLEBC7', host=Host(adv_ctrl, AsyncPipeSink(adv_ctrl)))
    await device.power_on()
    await device.start_advertising(own_address_type=hci.OwnAddressType.PUBLIC, advertising_data=adv_data(TEMPS[0]),
                                   advertising_interval_min=adv_interval_ms, advertising_interval_max=adv_interval_ms)
    return transport, guest_ctrl, adv_ctrl, log, port


class Run:
    """The console as it arrives: readings, markers and errors, each with its host time (s since launch)."""

    def __init__(self, mode, set_temp, power_loss):
        self.mode = mode
        self.set_temp = set_temp
        self.power_loss = power_loss
        self.readings = []      # (t, dict)
        self.markers = []       # (t, name, [args])
        self.bad_lines = []     # '{' lines that are not JSON objects
        self.errors = []        # BSL-ERR lines
        self.hcictl = {}        # (marker, k) -> guest wall-clock time hcictl issued its ioctl
        self.temp_changes = [(0.0, TEMPS[0])]

    def marker(self, name, n=None):
        for t, m, a in self.markers:
            if m == name and (n is None or (a and a[0] == str(n))):
                return t, a
        return None, None

    def change_temp(self, t, value):
        self.set_temp(value)
        self.temp_changes.append((t, value))

    def feed(self, t, line):
        if line.startswith('{'):
            try:
                obj = json.loads(line)
                if not isinstance(obj, dict):
                    raise ValueError('not an object')
            except ValueError:
                self.bad_lines.append(line)
                return
            self.readings.append((t, obj))
            # basic: once a few readings of the first value are in, switch to a negative one
            if self.mode in ('basic', 'adapter') and len(self.temp_changes) == 1 and \
                    sum(1 for _, r in self.readings if r.get('temperature_c') == TEMPS[0]) >= 5:
                self.change_temp(t, TEMPS[1])
        elif line.startswith('BSL-ERR: '):
            self.errors.append((t, line[9:]))
        elif line.startswith('hcictl: ') and self.markers:
            # "hcictl: up hci0 at=<unix s> ms=<n>", printed between "up-begin k" and "up-done k"
            at = next((w[3:] for w in line.split() if w.startswith('at=')), None)
            _, name, margs = self.markers[-1]
            if at is not None:
                self.hcictl[(name, margs[0] if margs else '')] = float(at)
        elif line.startswith('VM: '):
            words = [w for w in line[4:].split() if not w.startswith('uptime=')]
            self.markers.append((t, words[0], words[1:]))
            if self.mode == 'updown' and words[0] == 'down-done':
                self.change_temp(t, TEMPS[int(words[1])])
            if (self.mode, words[0]) in (('unplug', 'unplug-begin'), ('adapter', 'renumber-begin')):
                self.power_loss()
            if self.mode == 'adapter' and words[0] == 'renumber-done':
                self.change_temp(t, TEMPS[2])
            if self.mode == 'unplug' and words[0] == 'unplug-done':
                self.change_temp(t, TEMPS[1])

    def check(self, scan_types):
        """Every failed check as one line; empty when the run passed."""
        fails = []
        if self.marker('end')[0] is None:
            fails.append('guest did not finish (no "VM: end" marker)')
        t, a = self.marker('scan-exit')
        if t is None:
            fails.append('blesensor-log did not exit')
        elif a != ['rc=0']:
            fails.append(f'blesensor-log exited with {" ".join(a)}')
        if self.bad_lines:
            fails.append(f'{len(self.bad_lines)} stdout lines are not JSON objects, first: {self.bad_lines[0][:120]}')
        sent = {v for _, v in self.temp_changes}
        for t, r in self.readings:
            wrong = {k: r.get(k) for k, v in EXPECTED.items() if r.get(k) != v}
            if wrong or r.get('temperature_c') not in sent:
                fails.append(f'reading at {t:.2f}s has unexpected values {wrong or r}')
                break
        if not scan_types:
            fails.append('the scanner never set scan parameters')
        elif any(s != 0 for s in scan_types):
            fails.append(f'scan types {scan_types}: not passive')
        # Per phase: enough readings carrying the value sent since that phase began.
        for i, (since, value) in enumerate(self.temp_changes):
            n = sum(1 for t, r in self.readings if since <= t and r.get('temperature_c') == value)
            if n < MIN_READINGS:
                fails.append(f'phase {i} ({value} °C from {since:.2f}s): {n} readings, expected ≥ {MIN_READINGS}')
        if self.mode in ('basic', 'adapter') and len(self.temp_changes) < 2:
            fails.append('never switched to the negative temperature (too few readings of the first)')
        if self.mode == 'adapter':
            # Found by its address, under its number: the start-up line names both.
            if not any(f'hci0 ({GUEST_CTRL_ADDR})' in e for _, e in self.errors):
                fails.append(f'no stderr line names "hci0 ({GUEST_CTRL_ADDR})": the address was not resolved to hci0')
            # Renumbered: followed to hci1 by its address, readings of the value sent since then.
            if not any(f'hci1 ({GUEST_CTRL_ADDR})' in e for _, e in self.errors):
                fails.append(f'no stderr line names "hci1 ({GUEST_CTRL_ADDR})": the address was not followed to hci1')
            renumbered = self.recovery(1)
            if renumbered is None:
                fails.append(f'no reading of {TEMPS[2]} °C after the adapter came back as hci1')
            elif renumbered > RENUMBER_MAX_S:
                fails.append(f'readings again {renumbered:.2f} s after hci1 registered: the registration event was '
                             f'not followed (the fallback poll looks every 5 s)')
            if self.marker('rfkill-blocked')[0] is not None:
                if not any('was soft-blocked' in e and 'unblocked it' in e for _, e in self.errors):
                    fails.append('hci0 was soft-blocked but the scanner did not say it unblocked it')
                if self.marker('rfkill-final')[1] != ['soft=0']:
                    fails.append(f'rfkill after the run: {self.marker("rfkill-final")[1]}, expected soft=0')
        if self.mode == 'updown':
            for k in (1, 2):
                for m in ('down-done', 'up-done'):
                    t, a = self.marker(m, k)
                    if t is None:
                        fails.append(f'no "{m} {k}" marker')
                    elif a[1:] != ['rc=0']:
                        fails.append(f'hcictl in "{m} {k}" failed: {" ".join(a[1:])}')
            fails += [f'no reading of {TEMPS[k]} °C after up {k}' for k in (1, 2) if self.recovery(k) is None]
            # Live output: a value's readings must show up before the next action, not in one batch
            # at exit (a scanner that only flushes a full buffer would deliver them all at the end).
            for k, end in ((1, self.marker('down-begin', 2)[0]), (2, self.marker('scan-exit')[0])):
                first = self.first_reading(TEMPS[k], self.marker('down-done', k)[0])
                if first is not None and end is not None and first > end:
                    fails.append(f'readings of {TEMPS[k]} °C reached the console only after the next step '
                                 f'({first:.2f}s > {end:.2f}s): is stdout flushed per reading?')
        if self.mode == 'unplug' and self.recovery(1) is None:
            fails.append(f'no reading of {TEMPS[1]} °C after the replug')
        return fails

    def recovery(self, k):
        """Seconds from the guest beginning `hcictl up` (or hci0 registered again) number k to the first reading
        carrying the value sent since the matching down reaching the host console; negative when
        the scanner brought hci0 up by itself before that. Includes the scanner's output batching."""
        up, down = {'unplug': ('replug-done', 'unplug-done'),
                    'adapter': ('renumber-done', 'renumber-done')}.get(self.mode, ('up-begin', 'down-done'))
        t_up, _ = self.marker(up, k)
        t_down, _ = self.marker(down, k)
        if t_up is None or t_down is None:
            return None
        value = TEMPS[2] if self.mode == 'adapter' else TEMPS[k]
        first = self.first_reading(value, t_down)
        return None if first is None else first - t_up

    def guest_recovery(self, k):
        """The same inside the guest, on its wall clock: HCIDEVUP issued (hcictl's "at=") to the
        "time" the scanner stamped on the first reading of the new value. No console latency."""
        at = self.hcictl.get(('up-begin', str(k)))
        t_down, _ = self.marker('down-done', k)
        first = self.first_reading(TEMPS[k], t_down, full=True)
        if at is None or first is None or 'time' not in first:
            return None
        try:
            stamp = datetime.datetime.fromisoformat(first['time'].replace('Z', '+00:00')).timestamp()
        except ValueError:
            return None
        return stamp - at

    def first_reading(self, value, since, full=False):
        if since is None:
            return None
        return next(((r if full else t) for t, r in self.readings
                     if t >= since and r.get('temperature_c') == value), None)


async def run(args) -> int:
    t0 = time.monotonic()
    transport, guest_ctrl, adv_ctrl, cmdlog, port = await start_bumble(args.adv_interval)

    def set_temp(value):
        # Bumble's legacy advertiser reads this at every advertising event (FACTS.md).
        adv_ctrl.le_legacy_advertiser.advertising_data = adv_data(value)

    def power_loss():
        # An unplugged USB dongle loses power: its scan stops and its half-received command is gone.
        # Without this the emulated controller keeps streaming reports into the detached serial
        # line, and the re-attached H4 parser starts mid-frame and may take many HCI_Reset timeouts
        # to find the frame boundaries again (vm-e2e finding 11) - an artifact of H4 over a UART.
        guest_ctrl.le_scan_enable = False
        transport.source.parser.reset()

    state = Run(args.mode, set_temp, power_loss)
    use_kvm = args.accel == 'kvm' or (args.accel == 'auto' and kvm_usable())
    cmd = qemu_command(args.kernel, args.initrd, port,
                       f'vm_mode={args.mode} vm_duration={args.duration} vm_addr={GUEST_CTRL_ADDR}', use_kvm)
    print('+ ' + ' '.join(cmd), flush=True)
    t_launch = time.monotonic() - t0

    def on_line(t, s):
        state.feed(t, s)
        if not args.quiet or not s.startswith('{'):
            print(f'{t:8.3f} | {s}', flush=True)

    timed_out = await boot_and_read(cmd, transport, on_line, lambda: time.monotonic() - t0 - t_launch,
                                    args.timeout, args.log)
    wall = time.monotonic() - t0 - t_launch

    fails = state.check(cmdlog.scan_types)
    if timed_out:
        fails.insert(0, f'timeout after {args.timeout}s')
    print('---- HCI commands from the guest (count) ----')
    print('  ' + ', '.join(f'{k}x{v}' for k, v in cmdlog.counts.items()))
    print('  answered UNKNOWN_HCI_COMMAND: ' + (', '.join(sorted(cmdlog.unsupported)) or 'none'))
    print('---- temperature phases (s since launch: °C) ----')
    print('  ' + ', '.join(f'{t:.2f}: {v}' for t, v in state.temp_changes))
    for t, e in state.errors[:20]:
        print(f'  stderr {t:8.3f}: {e}')
    for f in fails:
        print(f'FAIL: {f}')

    def fmt(x):
        return '-' if x is None else f'{x:.2f}'
    first = state.readings[0][0] if state.readings else None
    t_scan, _ = state.marker('scan-start')
    ks = {'updown': (1, 2), 'unplug': (1,), 'adapter': (1,)}.get(args.mode, ())
    ms_list = lambda xs: ','.join('-' if x is None else f'{x * 1000:.0f}' for x in xs)
    extra = ''
    if args.mode == 'updown':
        extra += f' recovery_ms={ms_list(state.guest_recovery(k) for k in ks)}'
    if ks:
        extra += f' console_recovery_ms={ms_list(state.recovery(k) for k in ks)}'
    negative = sum(1 for _, r in state.readings if isinstance(r.get('temperature_c'), (int, float)) and r['temperature_c'] < 0)
    print(f'SUMMARY mode={args.mode} result={"FAIL" if fails else "PASS"} accel={"kvm" if use_kvm else "tcg"} '
          f'scan_start={fmt(t_scan)} first_reading={fmt(first)} readings={len(state.readings)} '
          f'negative={negative}{extra} wall={wall:.1f}', flush=True)
    return 1 if fails else 0


def main():
    p = argparse.ArgumentParser(description='One VM end-to-end run of blesensor-log scan (see the module doc).')
    p.add_argument('--mode', default='basic', choices=['basic', 'updown', 'unplug', 'adapter'])
    p.add_argument('--duration', type=int, default=None, help="the scanner's --duration (default: 12 basic, 25 otherwise)")
    p.add_argument('--kernel', default=DEFAULT_KERNEL)
    p.add_argument('--initrd', default=DEFAULT_INITRD)
    p.add_argument('--timeout', type=float, default=120, help='kill QEMU after this many seconds')
    p.add_argument('--accel', default='auto', choices=['auto', 'kvm', 'tcg'])
    p.add_argument('--adv-interval', type=int, default=100, help='advertising interval, ms')
    p.add_argument('--log', help='write the whole console, with host times, to this file')
    p.add_argument('--quiet', action='store_true', help='do not echo readings')
    p.add_argument('-v', '--verbose', action='store_true', help='Bumble debug logging (HCI trace)')
    args = p.parse_args()
    if args.duration is None:
        args.duration = 12 if args.mode == 'basic' else 25
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format='%(relativeCreated)9.1f bumble %(levelname)s %(name)s: %(message)s')
    return asyncio.run(run(args))


if __name__ == '__main__':
    sys.exit(main())
