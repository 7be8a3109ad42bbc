#if canImport(Glibc)
import Glibc
#endif
import AdvScanner
import SensorDecode

/// What makes two advertisements of one device "the same kind" for `scan --unknown` and
/// `run --keep-unknown`: the advertiser's address, each AD structure's type and length in order,
/// the total length, and the keys a decoder could be selected by (service data UUIDs, company ids,
/// the local name). The values inside the structures are not part of it, so a sensor sending a new
/// temperature every second is one shape, and the same sensor switching to another frame is a second.
struct PayloadShape: Hashable {
    let address: BDAddress
    /// Each AD structure as walked: `type << 8 | length`; a structure whose type byte is missing
    /// (the data ends after its length) is `length` alone.
    let structures: [UInt16]
    let length: Int
    let serviceDataUUIDs: [ServiceUUID]
    let companies: [UInt16]
    let name: [UInt8]?

    init(_ ad: Advertisement) {
        address = ad.address
        length = ad.data.count
        structures = Self.walk(ad.data).map { s in
            s.type.map { UInt16($0) << 8 | UInt16(s.length) } ?? UInt16(s.length)
        }
        serviceDataUUIDs = ad.fields.serviceData.map(\.uuid)
        companies = ad.manufacturerData.map(\.companyID)
        name = ad.fields.localName.map(Array.init)
    }

    /// The AD structures of `data` as `length | type | value`, each with the range of its bytes
    /// (length byte included), up to a zero length; the last one may run past the end (truncated),
    /// its range then ends with the data. Unlike `AdvertisingData` this keeps every structure,
    /// flags and names included, since the shape and the printed line need them all.
    static func walk(_ data: ArraySlice<UInt8>) -> [(length: UInt8, type: UInt8?, bytes: Range<Int>)] {
        var out: [(length: UInt8, type: UInt8?, bytes: Range<Int>)] = []
        var i = data.startIndex
        while i < data.endIndex {
            let length = data[i]
            if length == 0 { break }
            let end = min(data.endIndex, i + 1 + Int(length))
            out.append((length, i + 1 < data.endIndex ? data[i + 1] : nil, i..<end))
            i = end
        }
        return out
    }

    /// Whether `ad` carries anything a decoder could read: service or manufacturer data, a name,
    /// or a structure of a type nothing interprets. Flags, TX power and UUID lists alone are left
    /// out: no sensor value lives there, and every phone and tag nearby sends them.
    static func carriesPayload(_ ad: Advertisement) -> Bool {
        !ad.fields.serviceData.isEmpty || !ad.manufacturerData.isEmpty || ad.fields.localName != nil
            || !ad.fields.other.isEmpty
    }
}

/// The advertisements nothing decodes, one per `PayloadShape`, in the order first heard, at most
/// `capacity` of them: the first sample of each shape is kept and never replaced, so a full set
/// (and the file holding it) stops changing. Memory is bounded by `capacity` lines of at most
/// 1,650 AD bytes each.
struct UnknownDevices {
    static let maxCapacity = 10_000

    let capacity: Int
    /// `decode` input lines, in the order first heard.
    private(set) var lines: [String] = []
    private var shapes: Set<PayloadShape> = []
    /// Advertisements of a new shape that came when the set was full.
    private(set) var turnedAway = 0

    init(capacity: Int) { self.capacity = capacity }

    /// Keeps `ad` when its shape is new and there is room; returns its line then, else `nil`.
    /// The caller passes only advertisements that no decoder decoded.
    mutating func record(_ ad: Advertisement) -> String? {
        guard PayloadShape.carriesPayload(ad) else { return nil }
        let shape = PayloadShape(ad)
        if shapes.contains(shape) { return nil }
        guard lines.count < capacity else {
            turnedAway += 1
            return nil
        }
        shapes.insert(shape)
        let line = Self.line(ad)
        lines.append(line)
        return line
    }

    /// Keeps a line read back from a file (a previous run's): its shape counts as known, its text
    /// is kept as it was. Returns false, keeping nothing, when it is not an `ADDRESS HEX` line of
    /// an advertisement with a payload, or holds a control character (`line` never writes one, so
    /// the text is not ours and is not echoed into the file), or its shape is already kept, or the
    /// set is full.
    mutating func restore(_ text: Substring) -> Bool {
        guard lines.count < capacity else { return false }
        let isControl: (Unicode.Scalar) -> Bool = { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        guard !text.trimmingWhitespace().unicodeScalars.contains(where: isControl) else { return false }
        let hex = text.prefix { $0 != "#" }
        var extractor = AdvertisementExtractor()
        guard case .success(let ads) = DecodeCommand.parseLine(hex.trimmingWhitespace(), extractor: &extractor),
            ads.count == 1, PayloadShape.carriesPayload(ads[0])
        else { return false }
        guard shapes.insert(PayloadShape(ads[0])).inserted else { return false }
        lines.append(String(text.trimmingWhitespace()))
        return true
    }

    /// `AA:BB:CC:DD:EE:FF 020106 0bff3412… # rssi -71 dBm, random address, name "…", first heard …`:
    /// the part before `#` is `decode`'s input (one hex group per AD structure), the rest a comment
    /// it skips. The name is escaped (`DisplayText`): radio text can break neither the line nor a terminal.
    static func line(_ ad: Advertisement) -> String {
        var s = ad.address.description
        let structures = PayloadShape.walk(ad.data)
        for st in structures { s += " " + Hex.encode(ad.data[st.bytes]) }
        if let last = structures.last?.bytes.upperBound, last < ad.data.endIndex {
            s += " " + Hex.encode(ad.data[last...])  // after a zero length: padding, kept as sent
        }
        var notes: [String] = []
        if let rssi = ad.rssi { notes.append("rssi \(rssi) dBm") }
        if ad.addressType != .publicDevice { notes.append("\(ad.addressType) address") }
        if let name = ad.fields.localName { notes.append("name \"\(DisplayText.escape(name))\"") }
        if ad.timeMicros != 0 {
            notes.append("first heard " + Timestamp.iso8601(micros: ad.timeMicros, localOffsetSeconds: nil))
        }
        return notes.isEmpty ? s : s + " # " + notes.joined(separator: ", ")
    }
}

/// `run --keep-unknown N` / `replay --keep-unknown N`: up to N unknown advertisements kept in a
/// file beside the database (`<db>.unknown`, or `--unknown-file`), one `decode` line each, for a
/// user to send to whoever writes the next decoder. Lines a previous run left are read back first
/// (so a restart keeps them), and the file is rewritten atomically (`AtomicFile`) when something
/// was added, at most every `writeInterval` seconds, and at the end.
struct UnknownDevicesFile {
    static let options: [OptionSpec] = [
        .value(
            "keep-unknown", "N",
            help: "Keep up to N advertisements nothing decodes (one per device and payload shape) in a file, as `decode` input (0–10000)."),
        .value("unknown-file", "PATH", help: "Where --keep-unknown writes (default: the database path + .unknown)."),
    ]
    static let writeInterval = 5.0

    let path: String
    private(set) var devices: UnknownDevices
    private var unsaved = false
    private var lastWrite = -Double.infinity
    private var failing = false

    /// `nil` when `--keep-unknown` is absent; a bad N is 64. Touches no file (that is `start`).
    static func parse(_ args: ParsedArguments, databasePath: String) throws(CLIError) -> UnknownDevicesFile? {
        if args.value("unknown-file") != nil, args.value("keep-unknown") == nil {
            throw .usage("--unknown-file needs --keep-unknown N")
        }
        guard let text = args.value("keep-unknown") else { return nil }
        guard let n = Int(text), (0...UnknownDevices.maxCapacity).contains(n) else {
            throw .usage("--keep-unknown wants a whole number from 0 to \(UnknownDevices.maxCapacity), got '\(text.prefix(20))'")
        }
        return UnknownDevicesFile(path: args.value("unknown-file") ?? databasePath + ".unknown", capacity: n)
    }

    init(path: String, capacity: Int) {
        self.path = path
        devices = UnknownDevices(capacity: capacity)
    }

    /// Reads what a previous run kept and writes it back at once, so an unwritable place is found
    /// at start (73/74), and a smaller N than last time shortens the file at once.
    mutating func start() throws(CLIError) {
        try load()
        try write()
    }

    /// Called with every advertisement that no decoder decoded.
    mutating func record(_ ad: Advertisement) {
        if devices.record(ad) != nil { unsaved = true }
    }

    /// Writes the file when something was added and `writeInterval` has passed since the last
    /// write. A failure is logged once (and its recovery); the logger goes on, retrying.
    mutating func tick(now: Double, log: EventLog) {
        guard unsaved, now - lastWrite >= Self.writeInterval else { return }
        lastWrite = now
        do throws(CLIError) {
            try write()
            if failing { log.info("\(path): written again") }
            failing = false
        } catch {
            if !failing { log.warning("\(error); retrying every \(Int(Self.writeInterval)) s") }
            failing = true
        }
    }

    /// The last write, at exit (74 when it fails).
    mutating func close() throws(CLIError) {
        if unsaved { try write() }
    }

    private mutating func write() throws(CLIError) {
        let text = devices.lines.map { $0 + "\n" }.joined()
        try AtomicFile.replace(path, with: Array(text.utf8))
        unsaved = false
    }

    /// Reads back the lines a previous run kept, up to the capacity; lines that are not ours
    /// (hand edits, another program's) are dropped, with one warning.
    private mutating func load() throws(CLIError) {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return }
            throw CLIError("cannot read \(path): \(String(cString: strerror(errno)))", code: ExitCode.ioError)
        }
        defer { Glibc.close(fd) }
        var lines = InputLines(fd: fd, maxLength: DecodeCommand.maxLineBytes)
        var dropped = 0
        while devices.lines.count < devices.capacity, let next = try lines.next() {
            guard let line = next.bytes else {
                dropped += 1
                continue
            }
            let text = String(decoding: line, as: UTF8.self)
            if text.trimmingWhitespace().isEmpty { continue }
            if !devices.restore(text[...]) { dropped += 1 }
        }
        if dropped > 0 { printError("warning: \(path): \(dropped) lines dropped (not an advertisement with a payload, or a repeat)") }
    }
}

extension UnknownDevices {
    /// `scan --unknown`: the set whose new lines are printed live, as many as a file may keep;
    /// `nil` without the flag. It replaces the table and JSON output, so it excludes `--json` and `--all`.
    static func scanOption(_ args: ParsedArguments) throws(CLIError) -> UnknownDevices? {
        guard args.has("unknown") else { return nil }
        if args.has("json") || args.has("all") { throw .usage("--unknown prints `decode` lines: it excludes --json and --all") }
        return UnknownDevices(capacity: maxCapacity)
    }
}
