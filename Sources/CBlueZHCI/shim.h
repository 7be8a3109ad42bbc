// BlueZ's libbluetooth: raw HCI sockets (AF_BLUETOOTH / BTPROTO_HCI), the HCI filter, device ioctls;
// L2CAP sockets (sockaddr_l2) for GATT remotes on the ATT channel.
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/l2cap.h>
