"""
The host side every VM test shares (vm_test.py, vm_gatt_test.py): the emulated guest controller
that QEMU's second serial port is attached to over H4/TCP, the Minew advertisement the passive
scan hears, the QEMU command line, and the loop that boots the guest and reads its console.

Bumble quirks handled here (see ../../../shared/vm-e2e/README.md, findings 4-7): the emulated hci0
needs a non-zero BD_ADDR; the extended-advertising feature bits are removed so a legacy scan gets
legacy reports; HCI_Reset is made to stop scanning, as a real controller does.
"""
import asyncio
import os
import shutil
import socket
import struct

from bumble import hci
from bumble.controller import Controller
from bumble.core import AdvertisingData
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket

GUEST_CTRL_ADDR = 'F0:F0:F0:00:00:01'   # Bumble's default 00:00:00:00:00:00 makes HCIDEVUP fail (EADDRNOTAVAIL)
SENSOR_ADDR = 'A4:C1:38:BC:07:01'
EXT_FEATURES = hci.LeFeatureMask.LE_EXTENDED_ADVERTISING | hci.LeFeatureMask.LE_PERIODIC_ADVERTISING
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_KERNEL = os.path.join(HERE, 'build', 'kernel', 'vmlinux')
DEFAULT_INITRD = os.path.join(HERE, 'build', 'initramfs.cpio.gz')


def minew_frame(temp_c: float, address: str = SENSOR_ADDR) -> bytes:
    """MM-BLEBC7 frame (Minew service data 0xFFE1, type A1 version 01): battery 100 %, temperature
    s8.8 big-endian, humidity 50.0 % u8.8, then the device MAC little-endian (as the sensor sends it)."""
    raw = int(round(temp_c * 256)) & 0xFFFF
    mac = bytes.fromhex(address.replace(':', ''))[::-1]
    return bytes([0xA1, 0x01, 100]) + struct.pack('>H', raw) + struct.pack('>H', 50 * 256) + mac


def minew_adv(temp_c: float, address: str = SENSOR_ADDR) -> bytes:
    return bytes(AdvertisingData([
        (AdvertisingData.FLAGS, bytes([0x06])),
        (AdvertisingData.SERVICE_DATA_16_BIT_UUID, struct.pack('<H', 0xFFE1) + minew_frame(temp_c, address)),
    ]))


class ResettingController(Controller):
    """Bumble's HCI_Reset is a no-op (a TODO upstream), so scanning would survive the reset that the
    kernel sends at every HCIDEVUP, and a scanner that never re-enables its scan would pass the
    down/up test. A real controller stops scanning on reset; so does this one."""

    def on_hci_reset_command(self, command):
        self.le_scan_enable = False
        self.filter_duplicates = False
        self.le_legacy_advertiser.stop()
        return super().on_hci_reset_command(command)


def legacy_only(*controllers):
    """With the extended-advertising feature bit set, Bumble answers even a legacy scan with extended
    reports (0x0D); a real legacy controller sends 0x02 reports."""
    for c in controllers:
        c.le_features &= ~EXT_FEATURES


async def guest_controller(link):
    """The guest's hci0: a controller on `link` behind an H4 TCP server on an ephemeral loopback port
    (QEMU connects its second serial port to it). Returns (transport, controller, port)."""
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    sock.listen(1)
    transport = await open_tcp_server_transport_with_socket(sock)
    ctrl = ResettingController('guest-hci0', host_source=transport.source, host_sink=transport.sink,
                               link=link, public_address=GUEST_CTRL_ADDR)
    return transport, ctrl, sock.getsockname()[1]


def kvm_usable() -> bool:
    """Hardware-backed /dev/kvm only: where it comes from kvm_pvm (these VMs), a stock kernel hangs."""
    return os.access('/dev/kvm', os.R_OK | os.W_OK) and (
        os.path.isdir('/sys/module/kvm_intel') or os.path.isdir('/sys/module/kvm_amd'))


def qemu_command(kernel, initrd, port, kernel_args, use_kvm=False):
    """QEMU booting `kernel` with the console on stdio and ttyS1 on the H4 server at `port`;
    `kernel_args` (vm_mode=…, vm_duration=…) are added to the kernel's command line."""
    cmd = [shutil.which('qemu-system-x86_64') or 'qemu-system-x86_64',
           '-nodefaults', '-no-user-config', '-display', 'none', '-no-reboot', '-m', '256', '-smp', '1',
           '-kernel', kernel, '-initrd', initrd,
           '-append', 'console=ttyS0 loglevel=3 panic=-1 cryptomgr.notests ' + kernel_args,
           '-serial', 'stdio',
           # nodelay=on: the 16550 model sends each transmitted byte on its own, and Nagle + delayed
           # ACK then add ~44 ms to every HCI command (HCI init 1.1 s instead of 50 ms).
           '-chardev', f'socket,id=hci,host=127.0.0.1,port={port},nodelay=on', '-serial', 'chardev:hci']
    return cmd + (['-enable-kvm', '-cpu', 'host'] if use_kvm else ['-accel', 'tcg', '-cpu', 'max'])


async def boot_and_read(cmd, transport, on_line, clock, timeout, log_path=None):
    """Boots the guest, hands each console line to `on_line(t, line)` (t from `clock()`), writes
    them with their times to `log_path`, and stops QEMU and the H4 server at the end. Returns
    whether the run hit `timeout` (QEMU is then killed)."""
    logf = open(log_path, 'w') if log_path else None
    proc = await asyncio.create_subprocess_exec(*cmd, stdin=asyncio.subprocess.DEVNULL,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    timed_out = False
    try:
        async def pump():
            while line := await proc.stdout.readline():
                s = line.decode(errors='replace').rstrip('\r\n')
                t = clock()
                if logf:
                    logf.write(f'{t:8.3f} {s}\n')
                on_line(t, s)
        await asyncio.wait_for(pump(), timeout=timeout)
        await asyncio.wait_for(proc.wait(), timeout=10)
    except asyncio.TimeoutError:
        timed_out = True
        print(f'!! timeout after {timeout}s, killing QEMU pid {proc.pid}', flush=True)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        transport.server.close()
        if logf:
            logf.close()
    return timed_out
