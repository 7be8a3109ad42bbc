#if canImport(Glibc)
import Glibc
#endif
import SensorDecode

/// An L2CAP socket on the LE ATT fixed channel (CID 4) to one remote, through the kernel: the
/// kernel makes the LE connection itself (`connect` on the socket), so nothing but this socket is
/// needed. Non-blocking and close-on-exec from the start; `close()` once.
///
/// BlueZ's headers are not imported here (CBlueZHCI): a file that imports them early in a
/// whole-module build takes Glibc's socket constants with it, and files that import Glibc alone
/// no longer find `SOCK_STREAM`. The few constants are the kernel's ABI, written out below. The
/// socket is bound to any adapter (BDADDR_ANY): the kernel routes the connection through the
/// first adapter that is up.
struct L2CAPATTSocket {
    let fd: Int32
    static let attCID: UInt16 = 4
    /// The largest ATT PDU (LE, MTU ≤ 517).
    static let maxPDU = 517

    /// <sys/socket.h>, <bluetooth/bluetooth.h>: the protocol family, L2CAP, an LE public address.
    static let afBluetooth: Int32 = 31
    static let btprotoL2CAP: Int32 = 0
    static let bdaddrLEPublic: UInt8 = 1

    /// Starts connecting to `address` (public LE address). Returns at once: the socket becomes
    /// writable when connected (`connectError`).
    static func connect(to address: BDAddress) throws(SourceError) -> L2CAPATTSocket {
        let fd = socket(afBluetooth, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), btprotoL2CAP)
        guard fd >= 0 else { throw .system(call: "socket", errno: errno, detail: "L2CAP for the GATT remote \(address)") }
        let local = socketAddress([0, 0, 0, 0, 0, 0])  // BDADDR_ANY
        let remote = socketAddress(address.littleEndianBytes)
        guard call(bind, fd, local) == 0 else {
            let e = errno
            _ = Glibc.close(fd)
            throw .system(call: "bind", errno: e, detail: "L2CAP for the GATT remote \(address)")
        }
        guard call(Glibc.connect, fd, remote) == 0 || errno == EINPROGRESS || errno == EAGAIN else {
            let e = errno
            _ = Glibc.close(fd)
            throw .system(call: "connect", errno: e, detail: "GATT remote \(address)")
        }
        return L2CAPATTSocket(fd: fd)
    }

    /// `struct sockaddr_l2` (<bluetooth/l2cap.h>, not imported: it clashes with Glibc's socket
    /// types in a whole-module build) as its 14 bytes: family(2), PSM(2) 0, bdaddr(6, as bdaddr_t:
    /// little-endian), CID(2) 4, address type(1) LE public, padding(1).
    static func socketAddress(_ bdaddrLE: [UInt8]) -> [UInt8] {
        let family = UInt16(afBluetooth)
        return withUnsafeBytes(of: family) { Array($0) } + [0, 0] + bdaddrLE + [UInt8(attCID & 0xFF), UInt8(attCID >> 8)]
            + [bdaddrLEPublic, 0]
    }

    /// `bind` or `connect` with the address bytes. Invariant: `address` is a whole sockaddr_l2
    /// (14 bytes, `socketAddress`), alive for the call; the kernel reads `count` bytes, no more.
    private static func call(
        _ f: (Int32, UnsafePointer<sockaddr>?, socklen_t) -> Int32, _ fd: Int32, _ address: [UInt8]
    ) -> Int32 {
        address.withUnsafeBytes { raw in
            f(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
    }

    /// After the socket became writable: `nil` when connected, else the connect's errno.
    func connectError() -> Int32? {
        var e: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &length) == 0 else { return errno }
        return e == 0 ? nil : e
    }

    enum Received {
        case pdu([UInt8])
        case nothing
        case closed(Int32?)
    }

    /// One PDU if one is waiting (SEQPACKET: one read, one PDU).
    func receive() -> Received {
        var buffer = [UInt8](repeating: 0, count: Self.maxPDU)
        let n = read(fd, &buffer, buffer.count)
        if n > 0 { return .pdu(Array(buffer[0..<n])) }
        if n == 0 { return .closed(nil) }
        if errno == EAGAIN || errno == EINTR { return .nothing }
        return .closed(errno)
    }

    /// Sends one PDU; false when the link is gone.
    func send(_ pdu: [UInt8]) -> Bool {
        write(fd, pdu, pdu.count) == pdu.count
    }

    func close() { _ = Glibc.close(fd) }
}
