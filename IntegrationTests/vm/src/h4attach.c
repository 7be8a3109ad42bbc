/*
 * h4attach - a minimal static `btattach` for the VM test guest.
 *
 * Puts a serial port into raw mode, switches it to the N_HCI line discipline with the H4 protocol,
 * and holds it open: the kernel's hci_uart then registers hciN, whose controller is on the other end
 * of the line (the Bumble-emulated controller on the host, through a QEMU socket chardev).
 * The line discipline lives only while this process keeps the tty open: SIGTERM/SIGINT detach
 * cleanly and the kernel unregisters hciN ("adapter unplugged").
 *
 * The guest has no BlueZ user space, so the few ioctl numbers come from the kernel's
 * drivers/bluetooth/hci_uart.h.
 *
 * Usage: h4attach [/dev/ttyS1] [baud]
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#ifndef N_HCI
#define N_HCI 15
#endif
#define HCIUARTSETPROTO  _IOW('U', 200, int)
#define HCIUARTGETDEVICE _IOR('U', 202, int)
#define HCIUARTSETFLAGS  _IOW('U', 203, int)
#define HCI_UART_H4 0
#define HCI_UART_RESET_ON_INIT 1   /* flag bit: send HCI_Reset at every power-on, as btattach does */

static volatile sig_atomic_t stop;
static void on_signal(int s) { (void)s; stop = 1; }

static speed_t baud_constant(long b)
{
    switch (b) {
    case 9600: return B9600;
    case 57600: return B57600;
    case 230400: return B230400;
    case 460800: return B460800;
    case 921600: return B921600;
    case 1000000: return B1000000;
    case 3000000: return B3000000;
    default: return B115200;   /* the emulated 16550 ignores the rate anyway */
    }
}

int main(int argc, char **argv)
{
    const char *dev = argc > 1 ? argv[1] : "/dev/ttyS1";
    long baud = argc > 2 ? strtol(argv[2], NULL, 10) : 115200;
    int fd = open(dev, O_RDWR | O_NOCTTY);
    if (fd < 0) { fprintf(stderr, "h4attach: open %s: %s\n", dev, strerror(errno)); return 1; }

    struct termios ti;
    if (tcgetattr(fd, &ti) < 0) { perror("h4attach: tcgetattr"); return 1; }
    cfmakeraw(&ti);
    ti.c_cflag |= CLOCAL | CREAD;
    ti.c_cflag &= ~CRTSCTS;   /* the QEMU 16550 chardev has no hardware flow control */
    if (cfsetospeed(&ti, baud_constant(baud)) < 0 || cfsetispeed(&ti, baud_constant(baud)) < 0) {
        perror("h4attach: cfsetspeed"); return 1;
    }
    if (tcsetattr(fd, TCSANOW, &ti) < 0) { perror("h4attach: tcsetattr"); return 1; }
    if (tcflush(fd, TCIOFLUSH) < 0) { perror("h4attach: tcflush"); return 1; }

    int ldisc = N_HCI;
    if (ioctl(fd, TIOCSETD, &ldisc) < 0) { perror("h4attach: TIOCSETD N_HCI (is hci_uart loaded?)"); return 1; }
    /* Without RESET_ON_INIT hci_uart sends Reset on close instead of at init; a controller that was
     * scanning before would then keep scanning into a freshly opened hci0. */
    if (ioctl(fd, HCIUARTSETFLAGS, 1 << HCI_UART_RESET_ON_INIT) < 0) { perror("h4attach: HCIUARTSETFLAGS"); return 1; }
    if (ioctl(fd, HCIUARTSETPROTO, HCI_UART_H4) < 0) { perror("h4attach: HCIUARTSETPROTO"); return 1; }
    int id = ioctl(fd, HCIUARTGETDEVICE, 0);
    if (id < 0) { perror("h4attach: HCIUARTGETDEVICE"); return 1; }
    printf("h4attach: %s attached as hci%d (H4)\n", dev, id);
    fflush(stdout);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    if (sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, &sa, NULL) < 0) { perror("h4attach: sigaction"); return 1; }
    while (!stop) pause();

    ldisc = 0;   /* back to N_TTY: the kernel unregisters hciN */
    if (ioctl(fd, TIOCSETD, &ldisc) < 0) perror("h4attach: TIOCSETD N_TTY");
    close(fd);
    printf("h4attach: detached\n");
    return 0;
}
