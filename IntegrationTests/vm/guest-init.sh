#!/bin/sh
# /init of the VM test guest (busybox). The host (vm_test.py) reads the console and decides:
#   lines starting with '{'   blesensor-log's stdout (JSON readings), written straight to the console
#                             so no pipe buffering skews the timing
#   "BSL-ERR: ..."            blesensor-log's stderr
#   "VM: <event> ..."         markers around every action, with the guest uptime
# Kernel command line (unknown k=v parameters become environment variables):
#   vm_mode=basic   hci0 starts DOWN; the scanner must bring it up and report readings
#   vm_mode=updown  + `hcictl down` / `hcictl up` twice while scanning; readings must resume
#   vm_mode=unplug  + kill / restart the H4 attach helper (hci0 unregistered / registered again)
#   vm_mode=gatt    `run --actions` with a GATT remote (vm_gatt_test.py): notifications → commands
#   vm_mode=adapter hci0 soft-blocked by rfkill (when the kernel has a switch for it), the scanner
#                   given hci0's address (vm_addr) and --unblock: it must find hci0 by address,
#                   unblock it, bring it up and report readings; then ours is unregistered, a
#                   virtual controller (/dev/vhci) takes hci0 and ours comes back as hci1: the
#                   scanner must follow its address there
#   vm_mode=shell   busybox shell on the console with hci0 up (manual use)
#   vm_duration=S   the scanner's --duration
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
up() { cut -d' ' -f1 /proc/uptime; }
mark() { echo "VM: $* uptime=$(up)"; }
mark init
for m in $(cat /modules.order); do insmod /lib/modules/$m.ko || mark "insmod-failed $m"; done
mark modules-loaded
h4attach /dev/ttyS1 115200 & ATT=$!
i=0; while [ ! -e /sys/class/bluetooth/hci0 ] && [ $i -lt 200 ]; do usleep 50000; i=$((i+1)); done
[ -e /sys/class/bluetooth/hci0 ] || mark "hci0-missing"
# Up (which cancels the kernel's 2 s auto-off of a new adapter) and then down, so every mode starts
# from the same state: hci0 registered and DOWN. The scanner has to bring it up itself.
hcictl up 0 >/dev/null; hcictl down 0 >/dev/null
mark hci0-ready "$(hcictl info 0)"

DUR=${vm_duration:-25}
mkfifo /tmp/bsl-err
# (not sed: busybox sed reads a line ahead, which would hold each stderr line back until the next)
while IFS= read -r l; do echo "BSL-ERR: $l"; done < /tmp/bsl-err &
scan() {   # scanner in the background, stdout to the console; sets $P. Arguments: more options.
    mark scan-start
    blesensor-log scan --hci "${HCI:-hci0}" --json --duration "$DUR" "$@" 2>/tmp/bsl-err &
    P=$!
}
finish() { wait $P; RC=$?; mark scan-exit "rc=$RC"; }
case "${vm_mode:-basic}" in
basic)
    scan; finish ;;
updown)
    scan
    sleep 5
    for c in 1 2; do
        mark down-begin $c; hcictl down 0; mark down-done $c "rc=$?"
        sleep 2
        mark up-begin $c; hcictl up 0; mark up-done $c "rc=$?"
        sleep 5
    done
    finish ;;
unplug)
    scan
    sleep 5
    mark unplug-begin 1; kill $ATT; wait $ATT; mark unplug-done 1
    sleep 2
    mark replug-begin 1
    # drop what the host sent while detached (QEMU holds it until the port is opened again)
    timeout 1 cat /dev/ttyS1 > /dev/null
    h4attach /dev/ttyS1 115200 & ATT=$!
    i=0; while [ ! -e /sys/class/bluetooth/hci0 ] && [ $i -lt 200 ]; do usleep 50000; i=$((i+1)); done
    mark replug-done 1
    finish ;;
gatt)
    # The RFduino remote (vm_gatt_test.py): `run` connects through the kernel, subscribes, and runs
    # the rules' commands, which append to /tmp/player and say so on the console.
    cat > /tmp/rules.json <<'RULES'
{"remotes": [{"address": "C0:98:E5:00:00:01", "service": "2220", "characteristic": "2221"}],
 "rules": [
  {"match": {"sensor": "C0:98:E5:00:00:01", "event": "notify", "value": "00"},
   "run": ["/bin/sh", "-c", "echo next >> /tmp/player; echo ACTION: next"]},
  {"match": {"sensor": "C0:98:E5:00:00:01", "event": "notify", "value": "01"},
   "run": ["/bin/sh", "-c", "echo previous >> /tmp/player; echo ACTION: previous"]}]}
RULES
    mark scan-start
    blesensor-log run --hci hci0 --db /tmp/db --interval 0 --actions /tmp/rules.json --duration "$DUR" 2>/tmp/bsl-err &
    P=$!
    finish
    [ -e /tmp/player ] && while IFS= read -r l; do echo "PLAYER: $l"; done < /tmp/player
    blesensor-log export --events --csv --db /tmp/db | tr -d '\r' | while IFS= read -r l; do echo "EVENTS: $l"; done
    echo "READINGS: $(blesensor-log export --csv --db /tmp/db | tail -n +2 | wc -l)"
    echo "LAST-READING: $(blesensor-log export --csv --db /tmp/db | tail -n 1 | cut -d, -f1)" ;;
adapter)
    RF=""
    for n in /sys/class/rfkill/rfkill*/name; do [ "$(cat "$n" 2>/dev/null)" = hci0 ] && RF=${n%/name}; done
    if [ -n "$RF" ]; then echo 1 > "$RF/soft"; mark rfkill-blocked "soft=$(cat "$RF/soft")"; else mark rfkill-none; fi
    HCI=$vm_addr scan --unblock
    sleep 6
    [ -n "$RF" ] && mark rfkill-final "soft=$(cat "$RF/soft")"
    mark renumber-begin 1; kill $ATT; wait $ATT
    # vhci registers its controller 1 s after the open unless told otherwise; it takes hci0.
    exec 3<>/dev/vhci
    i=0; while [ ! -e /sys/class/bluetooth/hci0 ] && [ $i -lt 100 ]; do usleep 50000; i=$((i+1)); done
    timeout 1 cat /dev/ttyS1 > /dev/null
    h4attach /dev/ttyS1 115200 & ATT=$!
    i=0; while [ ! -e /sys/class/bluetooth/hci1 ] && [ $i -lt 200 ]; do usleep 50000; i=$((i+1)); done
    mark renumber-done 1 "$(ls /sys/class/bluetooth | tr '\n' ' ')"
    finish
    exec 3>&- ;;
shell)
    hcictl up 0; setsid cttyhack sh ;;
esac
mark hci0-final "$(hcictl info 0 2>&1)"
dmesg | grep -iE 'hci[0-9]|fail|error|warn|timeout|reassembly' | sed 's/^/VM-DMESG: /'
mark end
kill $ATT 2>/dev/null
sync; poweroff -f
