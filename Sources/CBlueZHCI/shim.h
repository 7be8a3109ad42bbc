// BlueZ's libbluetooth: raw HCI sockets (AF_BLUETOOTH / BTPROTO_HCI), the HCI filter, device ioctls.
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
