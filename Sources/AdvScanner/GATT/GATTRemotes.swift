#if canImport(Glibc)
import Glibc
#endif
import SensorDecode

/// Descriptors the scanner's loop waits on beside its transport's (see `LiveScanner.run`).
public protocol PollClient: AnyObject {
    /// What to wait on now: descriptors and the events wanted.
    var pollRequests: [pollfd] { get }
    /// The entries of `pollRequests` that became ready, with their `revents`.
    func pollReady(_ ready: [pollfd], now: Double)
}

/// One GATT remote: where to connect and what to subscribe to.
public struct GATTRemoteSpec: Equatable, Sendable {
    public var address: BDAddress
    public var service: GATTUUID
    public var characteristic: GATTUUID

    public init(address: BDAddress, service: GATTUUID, characteristic: GATTUUID) {
        self.address = address
        self.service = service
        self.characteristic = characteristic
    }
}

/// The configured GATT remotes, each kept connected and subscribed for as long as the logger
/// runs: connect (the kernel scans for the remote and connects), discover, subscribe, hand every
/// notification to `onValue`; when the link drops or an attempt fails, try again after a backoff
/// (`firstRetrySeconds`, doubling to `maxRetrySeconds`, back to the first once subscribed).
///
/// Per remote:
/// ```
///  waiting(until) ──due──▶ connecting ──writable, no error──▶ discovering ──subscribed──▶ subscribed
///       ▲                    │ error / `connectTimeout`          │ failure / `discoveryTimeout`  │ link lost
///       └────────────────────┴───────────────────────────────────┴──────────────────────────────┘
/// ```
/// Logging: one line when a remote is first subscribed, one when its link is lost, one when it is
/// back (with how long it took and how many attempts), and the first failure of a streak — never
/// a line per attempt, so a remote away for months costs no log.
///
/// State is fixed per remote (one socket, one subscription); the loop's thread only.
public final class GATTRemotes: PollClient {
    public let log: ScanLog
    /// A notification's value, from which remote.
    public var onValue: (BDAddress, [UInt8]) -> Void = { _, _ in }
    /// A link was just made (the kernel may have stopped the scan to make it).
    public var onConnected: () -> Void = {}

    public static let firstRetrySeconds = 0.5
    public static let maxRetrySeconds = 60.0
    public static let connectTimeout = 30.0
    public static let discoveryTimeout = 30.0

    private enum Phase {
        case waiting(until: Double)
        case connecting(L2CAPATTSocket, since: Double)
        case discovering(L2CAPATTSocket, since: Double)
        case subscribed(L2CAPATTSocket)
    }

    private struct Remote {
        let spec: GATTRemoteSpec
        var phase: Phase = .waiting(until: 0)
        var subscription: GATTSubscription
        var retry = GATTRemotes.firstRetrySeconds
        /// When the link was lost (or the first attempt began), and attempts since.
        var downSince: Double? = nil
        var attempts = 0
        var failureLogged = false
        var everSubscribed = false

        var socket: L2CAPATTSocket? {
            switch phase {
            case .waiting: nil
            case .connecting(let s, _), .discovering(let s, _), .subscribed(let s): s
            }
        }
    }

    private var remotes: [Remote]

    /// The kernel connects through the first adapter that is up (see `L2CAPATTSocket`).
    public init(_ specs: [GATTRemoteSpec], log: ScanLog) {
        self.log = log
        remotes = specs.map { Remote(spec: $0, subscription: GATTSubscription(service: $0.service, characteristic: $0.characteristic)) }
    }

    /// Whether each remote is subscribed now, in the order given.
    public var subscribed: [Bool] {
        remotes.map { if case .subscribed = $0.phase { true } else { false } }
    }

    public var pollRequests: [pollfd] {
        remotes.compactMap { r in
            switch r.phase {
            case .waiting: nil
            case .connecting(let s, _): pollfd(fd: s.fd, events: Int16(POLLOUT), revents: 0)
            case .discovering(let s, _), .subscribed(let s): pollfd(fd: s.fd, events: Int16(POLLIN), revents: 0)
            }
        }
    }

    /// The loop's tick: starts attempts that are due, gives up on those that took too long.
    public func tick(now: Double) {
        for i in remotes.indices {
            switch remotes[i].phase {
            case .waiting(let until) where now >= until:
                attempt(i, now: now)
            case .connecting(_, let since) where now - since >= Self.connectTimeout:
                failed(i, "no connection within \(Int(Self.connectTimeout)) s", now: now)
            case .discovering(_, let since) where now - since >= Self.discoveryTimeout:
                failed(i, "discovery took over \(Int(Self.discoveryTimeout)) s", now: now)
            default: break
            }
        }
    }

    public func pollReady(_ ready: [pollfd], now: Double) {
        for p in ready {
            guard let i = remotes.firstIndex(where: { $0.socket?.fd == p.fd }) else { continue }
            switch remotes[i].phase {
            case .waiting: break
            case .connecting(let s, _):
                if let e = s.connectError() {
                    failed(i, "connect: \(SourceError.strerror(e))", now: now)
                } else {
                    remotes[i].phase = .discovering(s, since: now)
                    if !s.send(remotes[i].subscription.start()) {
                        failed(i, "the link dropped at once", now: now)
                    } else {
                        onConnected()
                    }
                }
            case .discovering(let s, _), .subscribed(let s):
                readAll(i, s, now: now)
            }
        }
    }

    /// Closes every link (at exit).
    public func close() {
        for i in remotes.indices {
            remotes[i].socket?.close()
            remotes[i].phase = .waiting(until: .infinity)
        }
    }

    private func attempt(_ i: Int, now: Double) {
        if remotes[i].downSince == nil { remotes[i].downSince = now }
        remotes[i].attempts += 1
        do throws(SourceError) {
            let s = try L2CAPATTSocket.connect(to: remotes[i].spec.address)
            remotes[i].phase = .connecting(s, since: now)
        } catch {
            failed(i, error.description, now: now)
        }
    }

    private func readAll(_ i: Int, _ s: L2CAPATTSocket, now: Double) {
        // A few PDUs per wake-up at most: a remote cannot hold the loop.
        for _ in 0..<16 {
            switch s.receive() {
            case .nothing: return
            case .closed(let e):
                failed(i, e.map { "link lost: \(SourceError.strerror($0))" } ?? "link lost", now: now)
                return
            case .pdu(let bytes):
                let pdu: ATTPDU
                do throws(ATTPDU.Malformed) { pdu = try ATTPDU.parse(bytes) } catch {
                    log.write(.debug, "GATT remote \(remotes[i].spec.address): \(error); ignored")
                    continue
                }
                let wasSubscribed = remotes[i].subscription.isSubscribed
                let step = remotes[i].subscription.handle(pdu)
                for out in step.send where !s.send(out) {
                    failed(i, "link lost while sending", now: now)
                    return
                }
                if case .failed(let why) = remotes[i].subscription.state {
                    failed(i, why, now: now)
                    return
                }
                if !wasSubscribed, remotes[i].subscription.isSubscribed { subscribedNow(i, s, now: now) }
                for v in step.values { onValue(remotes[i].spec.address, v) }
            }
        }
    }

    private func subscribedNow(_ i: Int, _ s: L2CAPATTSocket, now: Double) {
        let r = remotes[i]
        let took = r.downSince.map { now - $0 } ?? 0
        let what = "GATT remote \(r.spec.address): subscribed to \(r.spec.characteristic)"
        if r.everSubscribed {
            log.write(.info, what + " again, \(String(format1: took)) s after the link was lost (\(r.attempts) attempt\(r.attempts == 1 ? "" : "s"))")
        } else {
            log.write(.info, what + " after \(String(format1: took)) s (\(r.attempts) attempt\(r.attempts == 1 ? "" : "s"))")
        }
        remotes[i].phase = .subscribed(s)
        remotes[i].everSubscribed = true
        remotes[i].retry = Self.firstRetrySeconds
        remotes[i].downSince = nil
        remotes[i].attempts = 0
        remotes[i].failureLogged = false
    }

    private func failed(_ i: Int, _ why: String, now: Double) {
        let wasSubscribed: Bool
        if case .subscribed = remotes[i].phase { wasSubscribed = true } else { wasSubscribed = false }
        remotes[i].socket?.close()
        let address = remotes[i].spec.address
        if wasSubscribed {
            log.write(.info, "GATT remote \(address): \(why); reconnecting")
            remotes[i].downSince = now
            remotes[i].attempts = 0
        } else if !remotes[i].failureLogged {
            remotes[i].failureLogged = true
            log.write(.warning, "GATT remote \(address): \(why); trying again with a backoff up to \(Int(Self.maxRetrySeconds)) s (further failures are not logged)")
        }
        remotes[i].subscription = GATTSubscription(service: remotes[i].spec.service, characteristic: remotes[i].spec.characteristic)
        // Right after a lost link the next attempt starts at once (the kernel waits for the
        // remote's advertisement): the remote is usually still near. Otherwise the backoff.
        if wasSubscribed {
            remotes[i].phase = .waiting(until: now)
            attempt(i, now: now)
            return
        }
        let delay = remotes[i].retry
        remotes[i].retry = min(Self.maxRetrySeconds, delay * 2)
        remotes[i].phase = .waiting(until: now + delay)
    }
}

extension String {
    /// `x` with one decimal.
    init(format1 x: Double) {
        let tenths = (x * 10).rounded()
        self = tenths.isFinite ? "\(Int64(tenths) / 10).\(abs(Int64(tenths) % 10))" : "\(x)"
    }
}
