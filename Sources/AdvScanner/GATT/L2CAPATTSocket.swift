#if canImport(Glibc)
import Glibc
#endif
import CBlueZHCI
import SensorDecode

/// An L2CAP socket on the LE ATT fixed channel (CID 4) to one remote, through the kernel: the
/// kernel makes the LE connection itself (`connect` on the socket), so nothing but this socket is
/// needed. Non-blocking and close-on-exec from the start; `close()` once.
struct L2CAPATTSocket {
    let fd: Int32
    static let attCID: UInt16 = 4
    /// The largest ATT PDU (LE, MTU ≤ 517).
    static let maxPDU = 517

    /// Starts connecting to `address` (public LE address) from `adapter` (`hciN`; any when `nil`).
    /// Returns at once: the socket becomes writable when connected (`finishConnect`).
    static func connect(to address: BDAddress, adapter: Int?) throws(SourceError) -> L2CAPATTSocket {
        let fd = socket(AF_BLUETOOTH, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), BTPROTO_L2CAP)
        guard fd >= 0 else { throw .system(call: "socket", errno: errno, detail: "L2CAP for the GATT remote \(address)") }
        var local = sockaddr_l2()
        local.l2_family = sa_family_t(AF_BLUETOOTH)
        local.l2_cid = attCID.littleEndian
        local.l2_bdaddr_type = UInt8(BDADDR_LE_PUBLIC)
        if let adapter {
            // hci_devba fills the adapter's own address (BDADDR_ANY otherwise: any adapter).
            guard hci_devba(Int32(adapter), &local.l2_bdaddr) == 0 else {
                let e = errno
                _ = Glibc.close(fd)
                throw .system(call: "hci_devba", errno: e, detail: "hci\(adapter) for the GATT remote \(address)")
            }
        }
        var remote = local
        // bdaddr_t is little-endian: the last octet of the text first.
        let bytes = address.littleEndianBytes
        remote.l2_bdaddr = bdaddr_t(b: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5]))
        let size = socklen_t(MemoryLayout<sockaddr_l2>.size)
        // Invariant of both casts: `local`/`remote` are sockaddr_l2 values alive for the call, and
        // `size` is their size; the kernel reads no further.
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        guard bound == 0 else {
            let e = errno
            _ = Glibc.close(fd)
            throw .system(call: "bind", errno: e, detail: "L2CAP for the GATT remote \(address)")
        }
        let rc = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, size) }
        }
        guard rc == 0 || errno == EINPROGRESS || errno == EAGAIN else {
            let e = errno
            _ = Glibc.close(fd)
            throw .system(call: "connect", errno: e, detail: "GATT remote \(address)")
        }
        return L2CAPATTSocket(fd: fd)
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
