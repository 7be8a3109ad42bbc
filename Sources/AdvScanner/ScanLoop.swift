import SensorDecode

#if canImport(Glibc)
    import Glibc
#endif

/// A stop request that a `poll` loop can wait on: a non-blocking self-pipe.
///
/// `request()` may be called from the loop's own callbacks (e.g. `--duration` reached).
/// `installSignalHandlers(_:)` makes SIGINT, SIGTERM and SIGHUP request a stop (a hung-up
/// terminal must not kill the logger before it commits). Signal handlers cannot
/// capture context, so the pipe's write end lives in the one global this module has,
/// `signalWakeFD`: written once before the handlers are installed, only read by the handler
/// (`write(2)` is async-signal-safe). A self-pipe rather than signalfd because signalfd needs the
/// signals blocked in every thread, which a library cannot promise.
public final class StopSignal {
    public let readFD: Int32
    private let writeFD: Int32
    private var requested = false

    public init() throws(SourceError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw .system(call: "pipe", errno: errno, detail: "stop signal") }
        // Non-blocking both ends (a full pipe must never block a signal handler), close-on-exec.
        for fd in fds {
            guard fcntl(fd, F_SETFL, O_NONBLOCK) == 0, fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else {
                let e = errno
                _ = Glibc.close(fds[0])
                _ = Glibc.close(fds[1])
                throw .system(call: "fcntl", errno: e, detail: "stop signal")
            }
        }
        readFD = fds[0]
        writeFD = fds[1]
    }

    deinit {
        if signalWakeFD == writeFD { signalWakeFD = -1 }
        _ = Glibc.close(readFD)
        _ = Glibc.close(writeFD)
    }

    /// Asks the loop to stop; it returns within one poll slice (≤ 1 s). Idempotent.
    public func request() {
        var b: UInt8 = 1
        _ = write(writeFD, &b, 1)  // a full pipe already holds a request: nothing lost
    }

    /// True once a stop was requested (checks the pipe without blocking).
    public var isRequested: Bool {
        if requested { return true }
        var pfd = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
        if poll(&pfd, 1, 0) == 1 { requested = true }
        return requested
    }

    /// SIGINT, SIGTERM and SIGHUP request a stop on `stop`. Call once, from the main thread, at start-up.
    public static func installSignalHandlers(_ stop: StopSignal) {
        signalWakeFD = stop.writeFD
        let handler: @convention(c) (Int32) -> Void = { _ in
            var b: UInt8 = 1
            _ = write(signalWakeFD, &b, 1)
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
        signal(SIGHUP, handler)
        // A parent can start us with these signals blocked (the mask is inherited across exec;
        // Foundation's Process under a test runner does it): a blocked SIGTERM would never stop us.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGHUP)
        _ = pthread_sigmask(SIG_UNBLOCK, &set, nil)  // fails only for an invalid `how`
    }
}

/// The write end of the installed `StopSignal`'s pipe, for the signal handler (see `StopSignal`).
nonisolated(unsafe) private var signalWakeFD: Int32 = -1

extension LiveScanner {
    /// Runs until a stop is requested: `ScannerGroup.run` over this one scanner (opens and arms,
    /// polls, hands over every advertisement, ticks once a second, switches scanning off at the end;
    /// `also`'s descriptors, the GATT remotes' sockets, are waited on too).
    /// - Throws: `ScanError.unavailable` only when the adapter/endpoint is missing at start; every
    ///   later failure is lived through (see the state machine in ScanControl.swift).
    public func run(
        stop: StopSignal, onAdvertisement: (AdvertisementHeader, ArraySlice<UInt8>) -> Void,
        onTick: (_ nowMonotonic: Double) -> Void = { _ in }, also: PollClient? = nil
    ) throws(ScanError) {
        try ScannerGroup([self]).run(stop: stop, onAdvertisement: onAdvertisement, onTick: onTick, also: also)
    }

    /// Reads what is waiting, at most 256 packets per wake-up so ticks keep running under a flood.
    /// Returns true when it stopped at that limit (more may be waiting, possibly already read into
    /// the transport's own buffer, where `poll` cannot see it).
    func drain(onAdvertisement: (AdvertisementHeader, ArraySlice<UInt8>) -> Void) -> Bool {
        for _ in 0..<256 {
            guard !transport.pollDescriptors.isEmpty else { return false }
            let event: SourceEvent
            do { event = try transport.next(timeout: 0) } catch {
                transportFailed(error.description)
                return false
            }
            switch event {
            case .timeout: return false
            case .end:
                transportFailed("the peer closed the connection")
                return false
            case .packet(let p):
                // Kernel device events (0xFD) never crossed the HCI wire: not for a capture.
                if p.bytes.first != HCIEventCode.stackInternal { packetObserver?(p) }
                handle(p, each: onAdvertisement)
            }
        }
        return true
    }
}
