#if canImport(Glibc)
import Glibc
#endif
import AdvScanner
import SensorDecode
import SensorStore

/// What `doctor` found on this machine: plain values gathered by `DoctorProbe`, judged by
/// `DoctorChecks.evaluate`. Kept apart so that every verdict can be tested with made-up facts.
struct DoctorFacts: Sendable {
    /// The adapter `--hci` names (`nil` number: the first one), or an H4 stream, which needs no
    /// kernel Bluetooth at all.
    var transport: TransportSpec = .hci(nil)
    /// `errno` of `socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)`; `nil` when the socket opened.
    var bluetoothSocketErrno: Int32? = nil
    /// `hciN` entries of /sys/class/bluetooth with what HCIGETDEVINFO said (`nil`: not asked,
    /// no socket); `nil` when the folder itself is missing.
    var adapters: [Adapter]? = []
    /// /sys/class/rfkill entries whose type is `bluetooth`.
    var rfkill: [Rfkill] = []
    var effectiveUID: UInt32 = 0
    /// `CapEff` of /proc/self/status; `nil` when unreadable.
    var effectiveCapabilities: UInt64? = nil
    /// For `serial:PATH`: whether the device can be opened for reading and writing.
    var serialAccessErrno: Int32? = nil
    /// Processes named `bluetoothd`.
    var bluetoothdPIDs: [Int32] = []
    var nowMicros: Int64 = 0
    /// `adjtimex` says the clock is unsynchronised (STA_UNSYNC, TIME_ERROR); `nil` when not asked.
    var kernelClockUnsynchronised: Bool? = nil
    /// /run/systemd/timesync/synchronized exists (systemd-timesyncd reached a server since boot).
    var timesyncdSynchronised = false
    var database = Database()
    /// The Raspberry Pi firmware's throttling bits (`get_throttled`); `nil` when not a Pi.
    var throttled: UInt32? = nil
    /// A sensor silent longer than this is stale.
    var staleMicros: Int64 = DoctorChecks.defaultStaleMicros
    /// The config file `run` would read.
    var config: ConfigState = .none(searched: [])

    enum ConfigState: Sendable, Equatable {
        case none(searched: [String])
        case read(path: String, settings: Int)
        /// The file's first mistake, as `run` would refuse it (`path:line: …`).
        case invalid(String)
    }

    struct Adapter: Sendable, Equatable {
        var name: String
        var status: AdapterStatus?
        /// From HCIGETDEVINFO; `nil` when not asked (no socket).
        var address: BDAddress? = nil
    }

    struct Rfkill: Sendable, Equatable {
        var name: String
        var softBlocked: Bool
        var hardBlocked: Bool
        /// The adapter whose switch this is (`hciN`); `nil` for a platform switch.
        var adapter: String? = nil
    }

    struct Database: Sendable {
        var path = ""
        var exists = false
        var sizeBytes: Int64 = 0
        var walBytes: Int64 = 0
        /// Bytes free for an unprivileged writer on the database's file system; `nil` when unknown.
        var freeBytes: Int64? = nil
        /// Why the read-only probe could not open or read the file; `nil` when it could.
        var openError: String? = nil
        /// `PRAGMA quick_check`'s lines (`["ok"]` when sound), read over a read-only connection.
        var quickCheck: [String] = []
        /// The stored sensors, read through `StoreReader` when the file is sound; or why the
        /// store refused it (foreign, newer schema, …).
        var sensors: Result<[Sensor], StoreError>? = nil
        /// Outbox entries no MQTT broker has acknowledged yet (`run --mqtt`); `nil` when unread.
        var outboxBacklog: Int? = nil
        /// Rows stamped while the clock was not synchronised (`clock_unsynced`); `nil` when unread.
        var unsynchronised: UnsynchronisedRows? = nil
    }

    /// What the checks need of a stored sensor (`SensorInfo`, whose initializer is the store's).
    struct Sensor: Sendable, Equatable {
        var address: BDAddress
        var model: String
        var alias: String?
        var lastSeenMicros: Int64
    }
}

/// One line of `doctor`'s output.
struct DoctorCheck: Sendable, Equatable {
    enum Status: String, Sendable { case ok, warn, fail }
    var name: String
    var status: Status
    /// What was found and, when it is not `ok`, what to do about it.
    var detail: String
}

/// The verdicts. Pure: everything comes from `DoctorFacts`.
enum DoctorChecks {
    /// As `summary --stale`'s default: a sensor silent for half an hour is worth a look.
    static let defaultStaleMicros: Int64 = 30 * 60_000_000
    /// Below this the store soon meets a full disk (it stops storing, keeps running).
    static let freeBytesFail: Int64 = 64 << 20
    static let freeBytesWarn: Int64 = 512 << 20
    /// The store checkpoints its WAL back to a few tens of MiB; far more means a reader keeps an
    /// old snapshot open or checkpoints fail.
    static let walBytesWarn: Int64 = 128 << 20
    /// 2025-01-01T00:00:00Z: a clock before it was never set (a Pi without RTC boots at 1970 or
    /// at fake-hwclock's last save).
    static let plausibleClockMicros: Int64 = 1_735_689_600 * 1_000_000

    static let capNetAdmin: UInt64 = 1 << 12
    static let capNetRaw: UInt64 = 1 << 13

    static func evaluate(_ f: DoctorFacts) -> [DoctorCheck] {
        var out: [DoctorCheck] = []
        switch f.transport {
        case .hci(let number): out += radio(f, number: number)
        case .adapter(let address): out += radio(f, number: nil, address: address)
        case .h4(let endpoint): out += stream(f, endpoint)
        }
        out.append(config(f.config))
        out.append(clock(f))
        out += database(f)
        out.append(power(f))
        return out
    }

    // MARK: - The radio

    /// - Parameter address: `--hci ADDRESS`: the adapter that has it (`number` is then `nil`).
    static func radio(_ f: DoctorFacts, number: Int?, address: BDAddress? = nil) -> [DoctorCheck] {
        var out: [DoctorCheck] = []
        let kernelOK: Bool
        switch f.bluetoothSocketErrno {
        case nil:
            out.append(.init(name: "kernel", status: .ok, detail: "Bluetooth sockets available"))
            kernelOK = true
        case EAFNOSUPPORT?:
            out.append(.init(name: "kernel", status: .fail, detail:
                "this kernel has no Bluetooth support (socket(AF_BLUETOOTH): EAFNOSUPPORT): load it with "
                + "'sudo modprobe bluetooth btusb', or use a kernel built with it; in a container the host's kernel counts"))
            kernelOK = false
        case let e?:
            out.append(.init(name: "kernel", status: .warn, detail:
                "socket(AF_BLUETOOTH) failed: \(errorText(e)); the raw socket may not open either"))
            kernelOK = true
        }

        let adapters = f.adapters ?? []
        let wanted = number.map { "hci\($0)" } ?? address.flatMap { a in adapters.first { $0.address == a }?.name }
        if adapters.isEmpty {
            let why = kernelOK ? "plug in an adapter or check 'dmesg | grep -i bluetooth'" : "the kernel has no Bluetooth"
            out.append(.init(name: "adapter", status: .fail, detail: "no Bluetooth adapter (/sys/class/bluetooth is "
                + (f.adapters == nil ? "missing" : "empty") + "): " + why))
        } else if let address, wanted == nil {
            let present = adapters.map { a in a.name + (a.address.map { " \($0)" } ?? "") }.joined(separator: ", ")
            out.append(.init(name: "adapter", status: .fail, detail:
                "no adapter has address \(address); present: \(present): check the address ('btmgmt info') or pass hciN"))
        } else if let wanted, !adapters.contains(where: { $0.name == wanted }) {
            out.append(.init(name: "adapter", status: .fail, detail:
                "\(wanted) is not present; present: \(adapters.map(\.name).joined(separator: ", ")) "
                + "(hciN numbers can move after a reboot or USB reset): pass one of them with --hci"))
        } else {
            let chosen = wanted ?? adapters[0].name
            for a in adapters where wanted == nil || a.name == wanted {
                let role = (a.address.map { " \($0)" } ?? "") + (a.name == chosen ? " (used by run)" : "")
                switch a.status {
                case .up?: out.append(.init(name: "adapter", status: .ok, detail: "\(a.name) up\(role)"))
                case .down?:
                    out.append(.init(name: "adapter", status: .warn, detail: "\(a.name) down\(role): 'blesensor-log run' "
                        + "brings it up with CAP_NET_ADMIN, or 'sudo btmgmt --index \(a.name.dropFirst(3)) power on'"))
                case .absent?:
                    out.append(.init(name: "adapter", status: .fail, detail:
                        "\(a.name) is in /sys but the kernel does not list it\(role): unplug and replug it, see 'dmesg'"))
                case nil:
                    out.append(.init(name: "adapter", status: .warn, detail:
                        "\(a.name) present\(role), state unknown (no Bluetooth socket)"))
                }
            }
        }

        // One line per switch: each adapter's own, and platform switches that block them all.
        if f.rfkill.isEmpty {
            out.append(.init(name: "rfkill", status: .ok, detail: "no rfkill switch for Bluetooth"))
        }
        for r in f.rfkill {
            let used = r.adapter != nil && r.adapter == (wanted ?? adapters.first?.name) ? " (used by run)" : ""
            if r.hardBlocked {
                out.append(.init(name: "rfkill", status: .fail, detail:
                    "\(r.name)\(used) is hard-blocked: a switch, key or firmware setting turns the radio off; turn it on"))
            } else if r.softBlocked {
                out.append(.init(name: "rfkill", status: .fail, detail:
                    "\(r.name)\(used) is soft-blocked (an OS upgrade or a desktop applet can do this): "
                    + "'sudo rfkill unblock bluetooth', or start the logger with --unblock"))
            } else {
                out.append(.init(name: "rfkill", status: .ok, detail: "\(r.name)\(used) not blocked"))
            }
        }

        out.append(capabilities(f))

        if f.bluetoothdPIDs.isEmpty {
            out.append(.init(name: "bluetoothd", status: .ok, detail: "not running: fine, blesensor-log does not need it"))
        } else {
            out.append(.init(name: "bluetoothd", status: .ok, detail:
                "running (pid \(f.bluetoothdPIDs.map(String.init).joined(separator: ", "))): fine, blesensor-log only "
                + "listens beside it; if scanning stops when it starts, see 'journalctl -u bluetooth'"))
        }
        return out
    }

    static func capabilities(_ f: DoctorFacts) -> DoctorCheck {
        let hint = "run as root, or give the binary the capabilities: "
            + "'sudo setcap cap_net_raw,cap_net_admin+ep $(command -v blesensor-log)' (the systemd unit sets them)"
        guard let caps = f.effectiveCapabilities else {
            return f.effectiveUID == 0
                ? .init(name: "capabilities", status: .ok, detail: "root")
                : .init(name: "capabilities", status: .warn, detail: "cannot read CapEff from /proc/self/status; " + hint)
        }
        let who = f.effectiveUID == 0 ? "root with" : "uid \(f.effectiveUID) with"
        if caps & capNetRaw == 0 {
            return .init(name: "capabilities", status: .fail, detail:
                "\(who)out CAP_NET_RAW: the raw HCI socket will not open; " + hint)
        }
        if caps & capNetAdmin == 0 {
            return .init(name: "capabilities", status: .warn, detail:
                "\(who) CAP_NET_RAW but not CAP_NET_ADMIN: a downed adapter cannot be brought up; " + hint)
        }
        return .init(name: "capabilities", status: .ok, detail: "\(who) CAP_NET_RAW and CAP_NET_ADMIN")
    }

    static func stream(_ f: DoctorFacts, _ endpoint: H4StreamTransport.Endpoint) -> [DoctorCheck] {
        switch endpoint {
        case .serial(let path, _, _):
            if let e = f.serialAccessErrno {
                return [.init(name: "transport", status: .fail, detail:
                    "cannot open \(path) for reading and writing: \(errorText(e)); check the device and that you are "
                    + "in its group (e.g. 'dialout')")]
            }
            return [.init(name: "transport", status: .ok, detail:
                "H4 over \(path); the kernel's Bluetooth is not used, so its checks are skipped")]
        default:
            return [.init(name: "transport", status: .ok, detail:
                "H4 stream (\(TransportSpec.h4(endpoint))); not connected to (it may take one client only); "
                + "the kernel's Bluetooth is not used, so its checks are skipped")]
        }
    }

    // MARK: - The config file

    static func config(_ state: DoctorFacts.ConfigState) -> DoctorCheck {
        switch state {
        case .none(let searched):
            return .init(name: "config", status: .ok, detail:
                "no config file (looked for \(searched.joined(separator: ", "))): run uses its defaults and its command line")
        case .read(let path, let n):
            return .init(name: "config", status: .ok, detail: "\(path): \(n) setting\(n == 1 ? "" : "s") for run")
        case .invalid(let why):
            return .init(name: "config", status: .fail, detail: "\(why): run refuses to start until this line is fixed")
        }
    }

    // MARK: - The clock

    static func clock(_ f: DoctorFacts) -> DoctorCheck {
        if f.nowMicros < plausibleClockMicros {
            return .init(name: "clock", status: .fail, detail:
                "the clock reads \(Timestamp.iso8601(micros: f.nowMicros, localOffsetSeconds: nil)): it was never set; "
                + "the logger keeps readings in memory until NTP sets it (an hour at most, then stores them flagged, "
                + "stamped from 2026 on); enable NTP ('timedatectl set-ntp true')")
        }
        if f.kernelClockUnsynchronised == false {
            return .init(name: "clock", status: .ok, detail: "synchronised (kernel NTP status)")
        }
        if f.timesyncdSynchronised {
            return .init(name: "clock", status: .ok, detail: "synchronised (systemd-timesyncd)")
        }
        return .init(name: "clock", status: .warn, detail:
            "not known to be synchronised: the logger stores readings at its times, flagged as unsynchronised "
            + "(a Pi has no real-time clock: after a power cut they are wrong until NTP syncs); enable it "
            + "('timedatectl set-ntp true', or chrony) and check 'timedatectl'")
    }

    // MARK: - The database

    static func database(_ f: DoctorFacts) -> [DoctorCheck] {
        let d = f.database
        var out: [DoctorCheck] = []
        if !d.exists {
            out.append(.init(name: "database", status: .warn, detail:
                "no database at \(d.path) yet: 'blesensor-log run' creates it (or give --db)"))
        } else if let e = d.openError {
            out.append(.init(name: "database", status: .fail, detail:
                "\(d.path) cannot be read: \(e); the logger will refuse it: move it aside and let 'run' start a new one"))
        } else if d.quickCheck != ["ok"] {
            // SQLite may put several problems in one row, after a "*** in database main ***" head.
            let problems = d.quickCheck.flatMap { $0.split(separator: "\n") }.filter { !$0.hasPrefix("***") }
            let first = problems.first.map(String.init) ?? "no answer"
            let more = problems.count > 1 ? " (+\(problems.count - 1) more)" : ""
            out.append(.init(name: "database", status: .fail, detail:
                "\(d.path) is damaged (quick_check: \(first)\(more)): stop the logger, keep a copy, recover what can be "
                + "read with 'sqlite3 \(d.path) .recover | sqlite3 recovered.db', and start again with a new file"))
        } else {
            switch d.sensors {
            case .failure(let e)?:
                out.append(.init(name: "database", status: .fail, detail: e.description))
            default:
                out.append(.init(name: "database", status: .ok, detail:
                    "\(d.path): ours, sound (quick_check), \(bytes(d.sizeBytes))"))
            }
        }
        if let free = d.freeBytes {
            let status: DoctorCheck.Status = free < freeBytesFail ? .fail : free < freeBytesWarn ? .warn : .ok
            out.append(.init(name: "disk", status: status, detail: "\(bytes(free)) free beside the database"
                + (status == .ok ? "" : ": the store stops storing when the disk is full; free space or set --keep")))
        }
        if d.exists {
            let status: DoctorCheck.Status = d.walBytes > walBytesWarn ? .warn : .ok
            out.append(.init(name: "wal", status: status, detail: "write-ahead log \(bytes(d.walBytes))"
                + (status == .ok ? "" : ": checkpoints do not keep up; a long-running reader (export, sqlite3) may hold it open")))
        }
        if let n = d.outboxBacklog {
            out.append(.init(name: "mqtt", status: .ok, detail: "outbox: \(n) rows not yet acknowledged by an MQTT broker"))
        }
        if let u = d.unsynchronised { out.append(unsynchronisedRows(u)) }
        if case .success(let sensors)? = d.sensors {
            out += self.sensors(sensors, now: f.nowMicros, staleMicros: f.staleMicros)
        }
        return out
    }

    /// Rows kept while the clock was unsynchronised and never re-stamped (it did not sync in
    /// time): their times may be off by anything up to the step NTP would have made.
    static func unsynchronisedRows(_ u: UnsynchronisedRows) -> DoctorCheck {
        guard u.rows > 0, let first = u.firstMicros, let last = u.lastMicros else {
            return .init(name: "stamps", status: .ok, detail: "no stored row was stamped while the clock was unsynchronised")
        }
        func time(_ micros: Int64) -> String { Timestamp.iso8601(micros: micros, localOffsetSeconds: nil) }
        let spans = "\(u.spans) span\(u.spans == 1 ? "" : "s")"
        return .init(name: "stamps", status: .warn, detail:
            "\(u.rows) row\(u.rows == 1 ? "" : "s") (\(spans), \(time(first)) to \(time(last))) stamped while the clock was "
            + "unsynchronised: their times may be off ('export --jsonl' marks them \"clock_unsynced\":true); enable NTP "
            + "('timedatectl set-ntp true') so that readings heard before a sync are re-stamped instead")
    }

    static func sensors(_ sensors: [DoctorFacts.Sensor], now: Int64, staleMicros: Int64) -> [DoctorCheck] {
        guard let newest = sensors.map(\.lastSeenMicros).max() else {
            return [.init(name: "sensors", status: .ok, detail: "no sensors stored yet")]
        }
        var out: [DoctorCheck] = []
        if now - newest > staleMicros {
            out.append(.init(name: "sensors", status: .warn, detail:
                "the newest reading is \(SummaryCommand.age(now - newest)) old: is the logger running? "
                + "('systemctl status blesensor-log', 'journalctl -u blesensor-log')"))
        }
        for s in sensors {
            var who = s.address.description + " " + s.model
            if let a = s.alias { who += " \"" + DisplayText.escape(Array(a.utf8)) + "\"" }
            let age = now - s.lastSeenMicros
            let when = "last reading \(Timestamp.iso8601(micros: s.lastSeenMicros / 1_000_000 * 1_000_000, localOffsetSeconds: nil))"
                + " (\(SummaryCommand.age(age)) ago)"
            if age > staleMicros {
                out.append(.init(name: "sensor", status: .warn, detail:
                    "\(who): \(when), stale: check its battery and distance ('blesensor-log scan' shows what is heard)"))
            } else {
                out.append(.init(name: "sensor", status: .ok, detail: "\(who): \(when)"))
            }
        }
        return out
    }

    // MARK: - Power (Raspberry Pi)

    /// `get_throttled` bits (Raspberry Pi firmware): 0 under-voltage now, 1 ARM frequency capped
    /// now, 2 throttled now, 3 soft temperature limit now; 16–19 the same since boot.
    static func power(_ f: DoctorFacts) -> DoctorCheck {
        guard let t = f.throttled else {
            return .init(name: "power", status: .ok, detail: "not a Raspberry Pi (no get_throttled): nothing to check")
        }
        let supply = "use a supply that holds 5.1 V under load (the official one) and a short, thick cable"
        if t & 0x1 != 0 {
            return .init(name: "power", status: .fail, detail: "under-voltage now (get_throttled 0x\(hex(t))): " + supply)
        }
        if t & 0xE != 0 {
            return .init(name: "power", status: .warn, detail:
                "throttled or frequency capped now (get_throttled 0x\(hex(t))): check cooling and the supply")
        }
        if t & 0x1_0000 != 0 {
            return .init(name: "power", status: .warn, detail:
                "under-voltage has occurred since boot (get_throttled 0x\(hex(t))): " + supply)
        }
        if t & 0xE_0000 != 0 {
            return .init(name: "power", status: .warn, detail:
                "throttling has occurred since boot (get_throttled 0x\(hex(t))): check cooling and the supply")
        }
        return .init(name: "power", status: .ok, detail: "no under-voltage or throttling since boot")
    }

    // MARK: - Output

    static func text(_ checks: [DoctorCheck]) -> String {
        // One line each, whatever a path or a message holds.
        checks.map {
            $0.status.rawValue.padding(5) + $0.name.padding(13)
                + String($0.detail.map { $0.isNewline ? " " : $0 }) + "\n"
        }.joined()
    }

    /// One JSON object: `{"ok":BOOL,"checks":[{"check":…,"status":…,"detail":…},…]}`.
    static func json(_ checks: [DoctorCheck]) -> String {
        let items = checks.map {
            "{\"check\":" + JSON.string($0.name) + ",\"status\":\"" + $0.status.rawValue + "\",\"detail\":"
                + JSON.string($0.detail) + "}"
        }
        let ok = !checks.contains { $0.status == .fail }
        return "{\"ok\":\(ok),\"checks\":[" + items.joined(separator: ",") + "]}\n"
    }

    static func bytes(_ n: Int64) -> String {
        if n < 1 << 10 { return "\(n) B" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var v = Double(n) / 1024
        var i = 0
        while v >= 1024, i < units.count - 1 { v /= 1024; i += 1 }
        return String(Double(Int(v * 10)) / 10) + " " + units[i]
    }

    static func hex(_ v: UInt32) -> String { String(v, radix: 16) }

    static func errorText(_ e: Int32) -> String { String(cString: strerror(e)) }
}
