import SensorDecode

#if canImport(Glibc)
    import Glibc
#endif

/// Scan control: the conversation with the controller that keeps advertising reports flowing for
/// months — through adapters going down and up, unplugs, dropped connections, other programs
/// switching the scan off, and controllers that refuse one of the two scan command sets.
///
/// States and transitions (each arrow names the function that takes it):
///
/// ```
///                 start()                        arm() succeeded
///   ┌────────┐ ──────────► (open transport) ──────────────────────────────► ┌──────────┐
///   │ closed │                  │ adapter down: bringUp() (HCIDEVUP);      │ scanning │◄──┐
///   └────────┘                  │ EPERM → log once, wait                   └──────────┘   │ rearm()
///        ▲                      ▼                                             │  │  │  └──┘ silence watchdog
///        │ shutdown()     ┌─────────────┐   deviceEvent(UP) / poll finds up    │  │  │       (tick), Hardware
///        │ (disable only  │ adapterDown │ ─────────── reopenAndArm() ─────────►│  │  │       Error → reset
///        │  if we enabled)└─────────────┘ ◄─────── deviceEvent(DOWN/UNREG) ────┘  │  │
///        │                       ▲                                                 │  │
///        │                       │ transportFailed() when the adapter is down/gone │  │
///        │                ┌───────────┐ ◄──────────── transportFailed() ───────────┘  │
///        └─────────────── │ reopening │   (EOF, EPIPE, I/O error, command timeout,    │
///                         └───────────┘    arm() refused by the controller)           │
///                           │  tick(): reopenAndArm() at the deadline; failure doubles│
///                           │  the delay 1 s → 2 s → … → 30 s; success → scanning ────┘
/// ```
///
/// What holds in each state:
/// - **closed**: no descriptor is open; `weEnabled` is false. Sticky after `shutdown()`.
/// - **scanning**: the transport is open; either we switched scanning on with `commandSet`
///   (`weEnabled`), or another program owns the scan and we listen to its reports (`sharedScan`).
///   The silence watchdog runs: no advertisement for `config.silenceTimeout` → `rearm()`.
/// - **adapterDown**: the raw socket's adapter is down or unregistered; nothing is sent. We wait for
///   the kernel's device event (REG/UP) and, as a fallback, look every `adapterPollInterval` s.
///   After a REG we bring the adapter up (a fresh registration is powered off after 2 s otherwise);
///   after someone's DOWN we wait for their UP (vm-e2e finding 10).
/// - **reopening**: the transport is closed; `reopenAt` holds the monotonic deadline of the next
///   attempt. A failed attempt stays in this state with a doubled delay; it never gives up.
///
/// Choosing the command set: Read Local Supported Commands (octet 37 bits 5–6 = extended scan).
/// Extended is tried first where supported (newer controllers answer legacy commands with Command
/// Disallowed once anything used extended ones); a silence re-arm tries the other set first, in
/// case the one in use is accepted but reports nothing. Any Command Disallowed moves on to the other set;
/// when both are disallowed, another program is scanning: we listen anyway and never switch its
/// scan off. Scanning is passive with duplicate filtering off (a filter would freeze readings).
/// A raw socket without CAP_NET_RAW cannot send commands (EPERM): we also just listen.
///
/// Who owns the controller: over H4 we are its only host, so `arm()` starts with HCI Reset and
/// installs the event masks (`HCIEventMasks`: LE Meta, LE Advertising Report, LE Extended
/// Advertising Report); on a raw socket the kernel owns both and we send neither.
///
/// Logging: each transition is logged once at `.info`; repeats of the same condition (another
/// failed reconnect, another silent minute) go to `.debug`, so a months-long outage is a few lines.
/// Not thread-safe: one loop owns a `LiveScanner`.

/// What the scanner logs, and where. Lines are complete sentences without trailing newline.
public struct ScanLog: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case debug = 0
        case info = 1
        case warning = 2
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    public let write: @Sendable (Level, String) -> Void

    public init(_ write: @escaping @Sendable (Level, String) -> Void) { self.write = write }

    /// Discards everything (tests that do not look at the log).
    public static let silent = ScanLog { _, _ in }

    func debug(_ s: String) { write(.debug, s) }
    func info(_ s: String) { write(.info, s) }
    func warning(_ s: String) { write(.warning, s) }
}

/// Scan settings.
public struct ScanConfig: Sendable, Equatable {
    /// Scan interval and window in milliseconds; window == interval means continuous listening.
    public var intervalMs: Double = 100
    public var windowMs: Double = 100
    /// No advertisement for this long → switch scanning on again (someone may have switched it off).
    public var silenceTimeout: Double = 60
    /// Seconds to wait for a Command Complete (the kernel's HCI_CMD_TIMEOUT is 2 s).
    public var commandTimeout: Double = 2
    /// Use the extended command set where the controller lists it.
    public var preferExtended = true
    /// Reconnect backoff: first delay and ceiling, seconds.
    public var reconnectInitialDelay: Double = 1
    public var reconnectMaxDelay: Double = 30
    /// While the adapter is down, check its state this often even without a device event.
    public var adapterPollInterval: Double = 5

    public init() {}

    /// Interval and window in 0.625 ms slots, or why they are unusable.
    public func slots() -> Result<(interval: UInt16, window: UInt16), ScanError> {
        guard intervalMs.isFinite, windowMs.isFinite else {
            return .failure(.configuration("interval/window must be numbers"))
        }
        guard (2.5...10240).contains(intervalMs), (2.5...10240).contains(windowMs) else {
            return .failure(.configuration("interval and window must be between 2.5 and 10240 ms"))
        }
        guard windowMs <= intervalMs else {
            return .failure(.configuration("the window cannot be longer than the interval"))
        }
        return .success((UInt16((intervalMs / 0.625).rounded()), UInt16((windowMs / 0.625).rounded())))
    }
}

/// Why scanning cannot start. Every case is a one-line message.
public enum ScanError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No adapter or endpoint (exit 69).
    case unavailable(String)
    /// Bad settings (exit 64).
    case configuration(String)

    public var description: String {
        switch self {
        case .unavailable(let s): s
        case .configuration(let s): s
        }
    }
}

/// What the scanner knows about the adapter behind a transport.
public enum AdapterStatus: Sendable, Equatable {
    case up
    /// Registered but not powered (raw sockets only).
    case down
    /// Not registered (unplugged), or the endpoint is not reachable.
    case absent
}

/// A live transport scan control can drive: a raw HCI socket, an H4 stream, or a test fake.
public protocol ScanTransport: HCICommandTransport {
    /// Every descriptor the loop must wait on (empty while closed).
    var pollDescriptors: [Int32] { get }
    /// True when we are the controller's only host (H4): we reset it and set its event masks.
    /// False for a raw socket: the kernel owns the masks (it enables both report events itself) and
    /// other programs may share the controller.
    var ownsController: Bool { get }
    /// Whether the transport currently has an open descriptor for commands.
    var isOpen: Bool { get }
    /// The adapter's state as the OS sees it (H4: `.up` while connected, else `.absent`).
    func adapterStatus() -> AdapterStatus
    /// Powers the adapter up (raw socket: HCIDEVUP). H4 transports do nothing.
    func bringUp() throws(SourceError)
}

/// The command set scanning runs on.
public enum ScanCommandSet: String, Sendable, Equatable {
    case legacy
    case extended
}

/// Counters for `-v` summaries and tests.
public struct ScanStats: Sendable, Equatable {
    public var events = 0
    public var malformedEvents = 0
    public var advertisements = 0
    public var reconnects = 0
    public var rearms = 0
    public var hardwareErrors = 0
}

/// The scanner: scan control state machine plus (in ScanLoop.swift) the poll loop.
public final class LiveScanner {
    public enum State: Sendable, Equatable {
        case closed
        case scanning
        case adapterDown
        case reopening
    }

    public let transport: any ScanTransport
    public let channel: CommandChannel
    public let config: ScanConfig
    let log: ScanLog
    let slots: (interval: UInt16, window: UInt16)

    public private(set) var state: State = .closed
    /// The set our scan runs on (nil while not scanning or when listening to someone else's scan).
    public private(set) var commandSet: ScanCommandSet?
    /// We switched scanning on, so a clean exit switches it off.
    public private(set) var weEnabled = false
    /// Another program owns the scan; we only listen.
    public private(set) var sharedScan = false
    public private(set) var supported: SupportedCommands?
    public private(set) var stats = ScanStats()

    private var extractor = AdvertisementExtractor()
    /// Monotonic times.
    private var lastAdvertisement: Double = 0
    private var reopenAt: Double = 0
    private var backoff: Double
    private var nextAdapterPoll: Double = 0
    private var outageSince: Double?
    private var silenceLogged = false
    /// Set on a kernel DOWN: someone powered the adapter off on purpose; wait for their UP.
    private var adminDown = false
    private var upPermissionLogged = false
    private var sendPermissionLogged = false
    /// The set the next arm tries first (after a silent period on the other one).
    private var flipTo: ScanCommandSet?
    /// The start-up line (adapter, command set) has been logged.
    private var announced = false
    /// Polled during command waits so a stop request is honoured within ≤ 1 s.
    var interrupted: () -> Bool = { false }

    /// - Throws: `.configuration` when interval/window are out of range.
    public init(transport: any ScanTransport, config: ScanConfig = ScanConfig(), log: ScanLog = .silent)
        throws(ScanError)
    {
        self.transport = transport
        self.channel = CommandChannel(transport: transport)
        self.config = config
        self.log = log
        self.backoff = config.reconnectInitialDelay
        switch config.slots() {
        case .success(let s): slots = s
        case .failure(let e): throw e
        }
    }

    /// The `--capture` hook: sees every command sent and every packet received from the controller
    /// (not the kernel's device events), in order, with its wall-clock time.
    public var packetObserver: ((HCIPacket) -> Void)? {
        get { channel.observer }
        set { channel.observer = newValue }
    }

    // MARK: transitions

    /// closed → scanning (or adapterDown). Opens the transport and arms the scan.
    /// - Throws: `.unavailable` when there is no adapter/endpoint at all: at start that is a user
    ///   error (wrong `--hci`), later it is an outage the scanner lives through.
    public func start(now: Double = Clock.monotonic()) throws(ScanError) {
        precondition(state == .closed, "start() on a scanner that is not closed")
        do { try transport.reopen() } catch {
            switch error {
            case .unavailable(let why): throw .unavailable(why)
            case .system(let call, let e, _) where e == EAFNOSUPPORT && call.hasPrefix("socket"):
                throw .unavailable("this kernel has no Bluetooth support (socket(AF_BLUETOOTH): EAFNOSUPPORT)")
            default: throw .unavailable(error.description)  // .system names the device itself
            }
        }
        lastAdvertisement = now
        switch transport.adapterStatus() {
        case .absent:
            transport.close()
            throw .unavailable("\(transport.name): no such adapter")
        case .down:
            state = .adapterDown
            tryBringUp(now: now)
        case .up:
            state = .scanning
            if arm(now: now) {
                announced = true
                log.info("\(transport.name): \(scanDescription)" + (startupNote.map { "; " + $0 } ?? ""))
            } else {
                transportFailed("could not start scanning", now: now)
            }
        }
    }

    /// Runs the arming sequence on an open transport; `true` when we scan (or listen to someone
    /// else's scan). On `false` the caller moves to reopening.
    /// - Parameter reset: send HCI Reset first (owned controllers, after opening or a Hardware
    ///   Error); the silence watchdog re-arms without it.
    @discardableResult
    func arm(now: Double, reset: Bool = true) -> Bool {
        extractor.dropPendingChains()
        sharedScan = false
        do {
            if transport.ownsController, reset {
                let r = try run(.reset)
                guard r.ok else {
                    log.warning("\(transport.name): Reset failed: \(HCIStatus.name(r.status))")
                    return false
                }
                weEnabled = false  // a reset stops scanning
            }
            if supported == nil {
                let r = try run(.readLocalSupportedCommands)
                if r.ok, let s = SupportedCommands(r.returnParameters) {
                    supported = s
                } else {
                    log.debug(
                        "\(transport.name): Read Local Supported Commands: \(HCIStatus.name(r.status)); assuming legacy scan commands"
                    )
                }
            }
            if transport.ownsController, reset {
                for cmd in [HCICommand.setEventMask(HCIEventMasks.page1), .leSetEventMask(HCIEventMasks.le)] {
                    let r = try run(cmd)
                    if !r.ok {
                        log.debug("\(transport.name): \(HCIOpcode.name(cmd.opcode)): \(HCIStatus.name(r.status))")
                    }
                }
            }
            let extendedListed = supported?.extendedScan ?? false
            var order: [ScanCommandSet] =
                extendedListed && config.preferExtended ? [.extended, .legacy] : [.legacy, .extended]
            if let flip = flipTo {
                // The last arm was followed by silence: try the other set first this time.
                order = [flip, flip == .legacy ? .extended : .legacy]
                flipTo = nil
            }
            if weEnabled, let current = commandSet {
                // Parameters cannot change while scanning, and the two sets cannot be mixed: our own
                // scan goes off first. Command Disallowed here means someone already stopped it.
                let off: HCICommand = current == .legacy ? .leSetScanEnable(false) : .leSetExtendedScanEnable(false)
                let r = try run(off)
                if !r.ok {
                    log.debug("\(transport.name): \(HCIOpcode.name(off.opcode)) (off): \(HCIStatus.name(r.status))")
                }
                weEnabled = false
            }
            var refusals: [String] = []
            for set in order {
                switch try enable(set) {
                case .enabled:
                    commandSet = set
                    weEnabled = true
                    lastAdvertisement = now
                    return true
                case .disallowed(let what):
                    refusals.append("\(set): \(what)")
                case .failed(let what):
                    // Unknown command / unsupported on this set: the other set may still work.
                    refusals.append("\(set): \(what)")
                    if set == order.last {
                        log.warning("\(transport.name): cannot start scanning (\(refusals.joined(separator: "; ")))")
                        return false
                    }
                }
            }
            if refusals.allSatisfy({ $0.contains("Disallowed") }) {
                // Both sets refused while another host scans: its reports reach us too.
                commandSet = nil
                weEnabled = false
                sharedScan = true
                lastAdvertisement = now
                log.info(
                    "\(transport.name): scanning is controlled by another program (\(refusals.joined(separator: "; "))); listening to its reports"
                )
                return true
            }
            log.warning("\(transport.name): cannot start scanning (\(refusals.joined(separator: "; ")))")
            return false
        } catch {
            if case .interrupted = error { return true }  // stopping anyway
            if case .transport(.system(_, let e, _)) = error, e == EPERM || e == EACCES {
                // A raw socket without CAP_NET_RAW still receives events: listen to whatever scan
                // another program runs instead of failing in a reconnect loop.
                if !sendPermissionLogged {
                    sendPermissionLogged = true
                    log.warning(
                        "\(transport.name): no permission to send HCI commands (needs CAP_NET_RAW); listening only")
                }
                commandSet = nil
                weEnabled = false
                sharedScan = true
                lastAdvertisement = now
                return true
            }
            log.debug("\(transport.name): arming failed: \(error)")
            return false
        }
    }

    private enum EnableOutcome {
        case enabled
        case disallowed(String)
        case failed(String)
    }

    /// Parameters then enable on one command set.
    private func enable(_ set: ScanCommandSet) throws(CommandError) -> EnableOutcome {
        let (params, on): (HCICommand, HCICommand)
        switch set {
        case .legacy:
            params = .leSetScanParameters(intervalSlots: slots.interval, windowSlots: slots.window)
            on = .leSetScanEnable(true, filterDuplicates: false)
        case .extended:
            params = .leSetExtendedScanParameters(intervalSlots: slots.interval, windowSlots: slots.window)
            on = .leSetExtendedScanEnable(true, filterDuplicates: false)
        }
        for cmd in [params, on] {
            let r = try run(cmd)
            if r.status == HCIStatus.commandDisallowed {
                log.debug("\(transport.name): \(HCIOpcode.name(cmd.opcode)): Command Disallowed")
                return .disallowed("\(HCIOpcode.name(cmd.opcode)): \(HCIStatus.name(r.status))")
            }
            if !r.ok { return .failed("\(HCIOpcode.name(cmd.opcode)): \(HCIStatus.name(r.status))") }
        }
        return .enabled
    }

    private func run(_ command: HCICommand) throws(CommandError) -> CommandResult {
        log.debug("\(transport.name): > \(command)")
        let r = try channel.execute(command, timeout: config.commandTimeout, interrupted: interrupted)
        log.debug("\(transport.name): < \(HCIOpcode.name(r.opcode)): \(HCIStatus.name(r.status))")
        return r
    }

    /// scanning → scanning: switch scanning on again (silence watchdog, after a Hardware Error).
    func rearm(reason: String, reset: Bool, now: Double) {
        stats.rearms += 1
        log.debug("\(transport.name): switching scanning on again (\(reason))")
        if !arm(now: now, reset: reset) { transportFailed("switching scanning on again failed", now: now) }
    }

    /// any open state → reopening (or adapterDown when the OS says the adapter is down or gone).
    public func transportFailed(_ why: String, now: Double = Clock.monotonic()) {
        guard state != .closed else { return }
        transport.close()
        channel.clearBacklog()
        weEnabled = false
        commandSet = nil
        sharedScan = false
        supported = nil  // a replugged controller may be a different one
        if outageSince == nil {
            outageSince = now
            log.info("\(transport.name): \(why); reconnecting (1 s, doubling to \(Int(config.reconnectMaxDelay)) s)")
        } else {
            log.debug("\(transport.name): \(why)")
        }
        let status = transport.adapterStatus()
        if !transport.ownsController, status != .up {
            state = .adapterDown
            nextAdapterPoll = now + config.adapterPollInterval
            return
        }
        state = .reopening
        reopenAt = now + backoff
        backoff = min(backoff * 2, config.reconnectMaxDelay)
    }

    /// reopening/adapterDown → scanning. Returns false (and stays out of scanning) on failure.
    @discardableResult
    func reopenAndArm(now: Double) -> Bool {
        do { try transport.reopen() } catch {
            log.debug("\(transport.name): reopen failed: \(error)")
            if state == .reopening {
                reopenAt = now + backoff
                backoff = min(backoff * 2, config.reconnectMaxDelay)
            }
            return false
        }
        channel.clearBacklog()
        if announced { stats.reconnects += 1 }
        state = .scanning
        guard arm(now: now) else {
            transportFailed("could not start scanning after reopening", now: now)
            return false
        }
        if !announced {
            // First arm of a scanner that started with its adapter down: the start-up line.
            announced = true
            outageSince = nil
            log.info("\(transport.name): \(scanDescription)" + (startupNote.map { "; " + $0 } ?? ""))
        } else if let since = outageSince {
            log.info("\(transport.name): scanning again after \(Self.seconds(now - since)) s (\(scanDescription))")
            outageSince = nil
        }
        return true
    }

    /// adapterDown: HCIDEVUP unless someone switched the adapter off on purpose.
    private func tryBringUp(now: Double) {
        guard !adminDown else { return }
        do {
            try transport.bringUp()
            log.info("\(transport.name): adapter was down; brought it up")
        } catch {
            if case .system(_, let e, _) = error, e == EPERM || e == EACCES {
                if !upPermissionLogged {
                    upPermissionLogged = true
                    log.warning(
                        "\(transport.name): adapter is down and bringing it up needs CAP_NET_ADMIN; waiting for it to come up"
                    )
                }
            } else {
                log.debug("\(transport.name): bringing the adapter up failed: \(error)")
            }
        }
        nextAdapterPoll = now + config.adapterPollInterval
        if transport.adapterStatus() == .up { _ = reopenAndArm(now: now) }
    }

    /// What the caller adds to the one start-up line (e.g. `run`: where readings go), so a user
    /// reads adapter, scanning, database and interval together.
    public var startupNote: String? = nil

    /// A short description for start-up and recovery lines.
    public var scanDescription: String {
        if sharedScan { return "listening only (another program controls scanning)" }
        guard let set = commandSet else { return "not scanning" }
        let ms =
            config.windowMs == config.intervalMs
            ? "continuous, \(Self.seconds(config.intervalMs)) ms interval"
            : "window \(Self.seconds(config.windowMs)) ms every \(Self.seconds(config.intervalMs)) ms"
        return "\(set) passive scanning, duplicates not filtered, \(ms)"
    }

    static func seconds(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int64(r)) : String(r)
    }

    // MARK: events and timers

    /// Handles one received packet: hands each whole advertisement it carried (extended chains
    /// through `ReportAssembler`), stamped with the packet's receive time, to `each` as its header
    /// and its bytes, a slice of the packet (no copy on the way to the decoders), and takes
    /// the transitions device events and Hardware Errors call for. `each` runs while the report
    /// assembler is in use: it must not call back into the scanner.
    public func handle(
        _ packet: HCIPacket, now: Double = Clock.monotonic(), each: (AdvertisementHeader, ArraySlice<UInt8>) -> Void
    ) {
        guard packet.type == .event else { return }
        stats.events += 1
        let event: HCIEvent
        switch extractor.forEachAdvertisement(in: packet, each) {
        case .advertisements(let count):
            if count > 0 {
                stats.advertisements += count
                lastAdvertisement = now
                backoff = config.reconnectInitialDelay  // healthy again: the next outage starts at 1 s
                if silenceLogged {
                    silenceLogged = false
                    log.info("\(transport.name): advertisements are arriving again")
                }
            }
            return
        case .malformed(let e):
            stats.malformedEvents += 1
            if stats.malformedEvents <= 3 { log.debug("\(transport.name): dropped malformed event: \(e)") }
            return
        case .notAnEvent: return
        case .other(let e): event = e
        }
        switch event {
        case .deviceEvent(let ev, _):
            deviceEvent(ev, now: now)
        case .hardwareError(let code):
            stats.hardwareErrors += 1
            log.warning("\(transport.name): controller Hardware Error 0x\(Hex.encode([code])); resetting and re-arming")
            if transport.ownsController {
                rearm(reason: "hardware error", reset: true, now: now)
            }
        // Raw socket: the kernel resets the controller itself (hci_error_reset: DOWN then UP);
        // the device events that follow take us through adapterDown.
        default:
            break  // late Command Complete, other LE subevents: nothing to do
        }
    }

    /// The same, returning the advertisements, each with a copy of its bytes (tests, tools).
    public func handle(_ packet: HCIPacket, now: Double = Clock.monotonic()) -> [Advertisement] {
        var out: [Advertisement] = []
        handle(packet, now: now) { header, bytes in out.append(Advertisement(header: header, data: bytes)) }
        return out
    }

    /// BlueZ device events for our adapter (the raw transport forwards only ours):
    /// REG=1, UNREG=2, UP=3, DOWN=4.
    func deviceEvent(_ ev: UInt16, now: Double) {
        switch ev {
        case 1:  // registered again (replugged): a new registration powers off after 2 s unless upped
            adminDown = false
            log.info("\(transport.name): adapter registered")
            if state == .adapterDown { tryBringUp(now: now) }
        case 2, 4:
            if ev == 4 { adminDown = true }
            if state == .scanning || state == .reopening {
                transport.close()
                channel.clearBacklog()
                weEnabled = false  // the kernel resets the controller on the way down
                commandSet = nil
                sharedScan = false
                supported = nil
                state = .adapterDown
                nextAdapterPoll = now + config.adapterPollInterval
                if outageSince == nil { outageSince = now }
                log.info("\(transport.name): adapter \(ev == 2 ? "removed" : "went down"); waiting for it")
            }
        case 3:
            adminDown = false
            if state == .adapterDown {
                log.info("\(transport.name): adapter is up")
                _ = reopenAndArm(now: now)
            }
        default:
            break
        }
    }

    /// Timers: the silence watchdog, the reopen deadline, the adapter poll. Call at least once a
    /// second. Returns the next monotonic deadline it cares about.
    @discardableResult
    public func tick(now: Double = Clock.monotonic()) -> Double {
        switch state {
        case .closed:
            return now + 1
        case .scanning:
            if now - lastAdvertisement >= config.silenceTimeout {
                if !silenceLogged {
                    silenceLogged = true
                    log.info(
                        "\(transport.name): no advertisement for \(Self.seconds(config.silenceTimeout)) s; switching scanning on again"
                    )
                } else {
                    log.debug("\(transport.name): still silent; switching scanning on again")
                }
                lastAdvertisement = now
                // Alternate the command set on each silent re-arm: a controller (or a kernel event
                // mask, HCI_QUIRK_BROKEN_EXT_SCAN) may accept one set and then report nothing.
                if let current = commandSet { flipTo = current == .legacy ? .extended : .legacy }
                rearm(reason: "silence", reset: false, now: now)
            }
            return lastAdvertisement + config.silenceTimeout
        case .reopening:
            if now >= reopenAt { reopenAndArm(now: now) }
            return state == .reopening ? reopenAt : now + 1
        case .adapterDown:
            if now >= nextAdapterPoll {
                nextAdapterPoll = now + config.adapterPollInterval
                switch transport.adapterStatus() {
                case .up: reopenAndArm(now: now)
                case .down: tryBringUp(now: now)
                case .absent: break
                }
            }
            return nextAdapterPoll
        }
    }

    /// scanning/any → closed: switches scanning off only if we switched it on, then closes.
    /// Idempotent.
    public func shutdown() {
        guard state != .closed else { return }
        if state == .scanning, weEnabled, let set = commandSet, transport.isOpen {
            let off: HCICommand = set == .legacy ? .leSetScanEnable(false) : .leSetExtendedScanEnable(false)
            do {
                let r = try channel.execute(off, timeout: 1)
                if !r.ok { log.debug("\(transport.name): switching scanning off: \(HCIStatus.name(r.status))") }
            } catch {
                log.debug("\(transport.name): switching scanning off: \(error)")
            }
        }
        weEnabled = false
        transport.close()
        state = .closed
    }
}
