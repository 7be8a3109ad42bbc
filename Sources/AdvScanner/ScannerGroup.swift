import SensorDecode

#if canImport(Glibc)
    import Glibc
#endif

/// Several scanners (one per `--hci`) driven by one poll loop on one thread, so that their
/// advertisements reach one pipeline and one store in the order they were read, with no locks.
///
/// Each scanner keeps its own state machine: one adapter down or unplugged never stops the
/// others. A scanner waiting for a command's answer holds the loop for at most that command's
/// timeout; the others' packets wait in their sockets meanwhile. `LiveScanner.run` is this loop
/// over one scanner.
public final class ScannerGroup {
    public let scanners: [LiveScanner]

    public init(_ scanners: [LiveScanner]) {
        precondition(!scanners.isEmpty, "a scanner group needs a scanner")
        self.scanners = scanners
    }

    /// Added to each scanner's start-up line.
    public var startupNote: String? {
        get { scanners[0].startupNote }
        set { for s in scanners { s.startupNote = newValue } }
    }

    /// Sees every packet of every scanner (see `LiveScanner.packetObserver`).
    public var packetObserver: ((HCIPacket) -> Void)? {
        get { scanners[0].packetObserver }
        set { for s in scanners { s.packetObserver = newValue } }
    }

    /// The scanners' counters added up.
    public var stats: ScanStats {
        scanners.map(\.stats).reduce(into: ScanStats()) { sum, s in
            sum.events += s.events
            sum.malformedEvents += s.malformedEvents
            sum.advertisements += s.advertisements
            sum.reconnects += s.reconnects
            sum.rearms += s.rearms
            sum.hardwareErrors += s.hardwareErrors
        }
    }

    public var name: String { scanners.map(\.transport.name).joined(separator: ", ") }

    /// Runs until a stop is requested: starts every scanner (`start()`), waits with `poll` on all
    /// their descriptors and the stop pipe, hands every advertisement to `onAdvertisement` (its
    /// header and its bytes, a slice of the packet; it runs while a scanner's report assembler is
    /// in use, so it must not call back into the scanners), and calls `onTick` about once a second
    /// with the monotonic time. Idle CPU is zero: the only wake-ups are packets, the 1 s tick and
    /// scan-control deadlines. `also`'s descriptors (the GATT remotes' sockets) are waited on too,
    /// and handed back when ready. Returns within ≤ 1 s of `stop.request()`, each scanner having
    /// switched scanning off if it switched it on.
    /// - Throws: `ScanError.unavailable` only when an adapter/endpoint is missing at start (a user
    ///   error: a wrong `--hci`); every later failure is lived through (ScanControl.swift).
    public func run(
        stop: StopSignal, onAdvertisement: (AdvertisementHeader, ArraySlice<UInt8>) -> Void,
        onTick: (_ nowMonotonic: Double) -> Void = { _ in }, also: PollClient? = nil
    ) throws(ScanError) {
        for s in scanners { s.interrupted = { stop.isRequested } }
        defer { for s in scanners { s.shutdown() } }
        for s in scanners { try s.start() }
        var nextTick = Clock.monotonic() + 1
        var moreWaiting = [Bool](repeating: false, count: scanners.count)
        var pfds: [pollfd] = []
        var owners: [Int] = []  // pfds[i + 1] belongs to scanners[owners[i]]
        while !stop.isRequested {
            for s in scanners {
                while let p = s.channel.nextBuffered() { s.handle(p, each: onAdvertisement) }
            }
            var now = Clock.monotonic()
            if now >= nextTick {
                onTick(now)
                nextTick = now + 1
            }
            var deadline = nextTick
            for s in scanners { deadline = min(deadline, s.tick(now: now)) }
            if stop.isRequested || scanners.contains(where: { $0.channel.pendingCount > 0 }) { continue }
            if moreWaiting.contains(true) {
                for (i, s) in scanners.enumerated() where moreWaiting[i] { moreWaiting[i] = s.drain(onAdvertisement: onAdvertisement) }
                continue
            }
            now = Clock.monotonic()
            let waitMs = Int32(max(0, min(deadline - now, 1)) * 1000) + 1
            pfds.removeAll(keepingCapacity: true)
            owners.removeAll(keepingCapacity: true)
            pfds.append(pollfd(fd: stop.readFD, events: Int16(POLLIN), revents: 0))
            for (i, s) in scanners.enumerated() {
                for fd in s.transport.pollDescriptors {
                    pfds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
                    owners.append(i)
                }
            }
            let scannersEnd = pfds.count
            if let also { pfds += also.pollRequests }
            let r = poll(&pfds, nfds_t(pfds.count), waitMs)
            if r < 0 {
                if errno == EINTR { continue }
                let why = "poll: \(SourceError.strerror(errno))"
                for s in scanners { s.transportFailed(why) }
                continue
            }
            if r == 0 || pfds[0].revents != 0 { continue }
            if let also, scannersEnd < pfds.count {
                let readyClients = pfds[scannersEnd...].filter { $0.revents != 0 }
                if !readyClients.isEmpty { also.pollReady(readyClients, now: Clock.monotonic()) }
            }
            var ready = Set<Int>()
            for (k, p) in pfds[1..<scannersEnd].enumerated() where p.revents != 0 { ready.insert(owners[k]) }
            for i in ready.sorted() { moreWaiting[i] = scanners[i].drain(onAdvertisement: onAdvertisement) }
        }
    }
}
