/*
 * hcictl - a tiny static stand-in for `hciconfig hciN up|down` in the VM test guest, which has no
 * BlueZ user space: the HCIDEVUP / HCIDEVDOWN / HCIGETDEVINFO ioctls on a raw HCI socket
 * (numbers and struct hci_dev_info from the kernel's include/net/bluetooth/hci_sock.h).
 *
 * Usage: hcictl up|down|info [N]      exit 0 on success; "up" on an adapter already up is success
 *
 * up/down print "hcictl: up hci0 at=<unix seconds.micros> ms=<ioctl duration>": the wall-clock time
 * the ioctl was issued, on the same clock as the "time" of blesensor-log's JSON readings, so the host
 * can measure recovery inside the guest without the console's latency.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define AF_BLUETOOTH_ 31
#define BTPROTO_HCI 1
#define HCIDEVUP      _IOW('H', 201, int)
#define HCIDEVDOWN    _IOW('H', 202, int)
#define HCIGETDEVINFO _IOR('H', 211, int)

struct hci_dev_info {
    uint16_t dev_id; char name[8]; uint8_t bdaddr[6]; uint32_t flags; uint8_t type; uint8_t features[8];
    uint32_t pkt_type, link_policy, link_mode; uint16_t acl_mtu, acl_pkts, sco_mtu, sco_pkts;
    uint32_t stat[10];   /* err_rx, err_tx, cmd_tx, evt_rx, acl_tx, acl_rx, sco_tx, sco_rx, byte_rx, byte_tx */
};

static double now_realtime(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* HCIDEVUP / HCIDEVDOWN, timed; EALREADY (already up) counts as success for "up". */
static int power(int s, int id, int up)
{
    double start = now_realtime();
    int r = ioctl(s, up ? HCIDEVUP : HCIDEVDOWN, id);
    int e = errno;
    double end = now_realtime();
    if (r < 0 && !(up && e == EALREADY)) {
        fprintf(stderr, "hcictl: %s hci%d: %s\n", up ? "HCIDEVUP" : "HCIDEVDOWN", id, strerror(e));
        return 1;
    }
    printf("hcictl: %s hci%d at=%.6f ms=%.0f%s\n", up ? "up" : "down", id, start, (end - start) * 1000,
           r < 0 ? " (was up)" : "");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: hcictl up|down|info [N]\n"); return 2; }
    int id = argc > 2 ? atoi(argv[2]) : 0;
    int s = socket(AF_BLUETOOTH_, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI);
    if (s < 0) { perror("hcictl: socket(AF_BLUETOOTH)"); return 1; }
    int rc = 0;
    if (!strcmp(argv[1], "up") || !strcmp(argv[1], "down")) {
        rc = power(s, id, !strcmp(argv[1], "up"));
    } else if (!strcmp(argv[1], "info")) {
        struct hci_dev_info di;
        memset(&di, 0, sizeof di);
        di.dev_id = (uint16_t)id;
        if (ioctl(s, HCIGETDEVINFO, &di) < 0) { perror("hcictl: HCIGETDEVINFO"); rc = 1; }
        else printf("%s addr=%02X:%02X:%02X:%02X:%02X:%02X %s evt_rx=%u cmd_tx=%u\n", di.name,
                    di.bdaddr[5], di.bdaddr[4], di.bdaddr[3], di.bdaddr[2], di.bdaddr[1], di.bdaddr[0],
                    (di.flags & 1) ? "UP" : "DOWN", di.stat[3], di.stat[2]);
    } else {
        fprintf(stderr, "usage: hcictl up|down|info [N]\n");
        rc = 2;
    }
    close(s);
    return rc;
}
