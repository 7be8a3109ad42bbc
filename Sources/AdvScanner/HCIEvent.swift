import SensorDecode

/// HCI event packets (Core Specification Vol 4 Part E §5.4.4 and §7.7), the ones a passive
/// scanner needs, parsed the way btmon does it: one table row per code with the spec's name and a
/// length rule, lengths checked once before the field parser runs, unknown codes kept as bytes.
///
/// Packet: `event code (1) | parameter length (1) | parameters`. An H4 stream or a capture prefixes
/// it with the packet indicator 0x04; `HCIEvent.parse(h4:)` accepts both forms.

/// Event codes (Vol 4 Part E §7.7).
public enum HCIEventCode {
    /// Disconnection Complete — not used, listed so the table names it.
    public static let disconnectionComplete: UInt8 = 0x05
    /// `num_hci_command_packets (1) | opcode (2, LE) | return parameters`
    public static let commandComplete: UInt8 = 0x0E
    /// `status (1) | num_hci_command_packets (1) | opcode (2, LE)`
    public static let commandStatus: UInt8 = 0x0F
    /// `hardware_code (1)`
    public static let hardwareError: UInt8 = 0x10
    /// `subevent code (1) | subevent parameters`
    public static let leMeta: UInt8 = 0x3E
    /// BlueZ stack-internal event (not on the wire; raw sockets bound to HCI_DEV_NONE), BlueZ's
    /// `evt_stack_internal`: `type (2, LE) | data`; type 0x0001 is a device event (`evt_si_device`):
    /// `event (2, LE) | dev_id (2, LE)`, 6 parameter bytes in all.
    public static let stackInternal: UInt8 = 0xFD
}

/// LE Meta subevent codes (Vol 4 Part E §7.7.65).
public enum LEMetaSubevent {
    /// `num_reports (1)`, then per report: `event_type (1) | address_type (1) | address (6) |
    /// data_length (1) | data (data_length) | rssi (1)`, report after report (FACTS.md: the
    /// layout controllers send and BlueZ/Wireshark parse).
    public static let advertisingReport: UInt8 = 0x02
    /// `num_reports (1)`, then per report: `event_type (2) | address_type (1) | address (6) |
    /// primary_phy (1) | secondary_phy (1) | sid (1) | tx_power (1) | rssi (1) |
    /// periodic_adv_interval (2) | direct_address_type (1) | direct_address (6) |
    /// data_length (1) | data (data_length)`.
    public static let extendedAdvertisingReport: UInt8 = 0x0D
}

/// One report of an LE Advertising Report or LE Extended Advertising Report event.
public struct AdvertisingReport: Sendable, Equatable {
    public var eventType: UInt16
    public var addressType: UInt8
    public var address: BDAddress
    public var rssi: Int8?
    /// A view into the event packet (no copy); reassembled extended chains own their bytes.
    public var data: ArraySlice<UInt8>
    /// Extended reports only.
    public var primaryPHY: UInt8?
    public var secondaryPHY: UInt8?
    /// Extended reports only; 0xFF ("no ADI") is kept as `nil`.
    public var sid: UInt8?
    public var txPower: Int8?
    /// Extended reports only: bits 5–6 of the event type.
    public var dataStatus: DataStatus

    public enum DataStatus: UInt8, Sendable {
        case complete = 0
        case moreToCome = 1
        case truncated = 2
        case reserved = 3
    }

    public var isExtended: Bool { primaryPHY != nil }

    /// What the report says of its advertisement but the bytes, stamped with its receive time.
    public func header(timeMicros: Int64) -> AdvertisementHeader {
        AdvertisementHeader(
            address: address, addressType: AddressType(rawValue: addressType), eventType: eventType, rssi: rssi,
            primaryPHY: primaryPHY, secondaryPHY: secondaryPHY, sid: sid, timeMicros: timeMicros)
    }

    /// The report as an `Advertisement`, stamped with its receive time.
    /// Consuming: the report is done with once it is an advertisement, so its data moves, not copies.
    public consuming func advertisement(timeMicros: Int64) -> Advertisement {
        Advertisement(header: header(timeMicros: timeMicros), data: data)
    }
}

/// A parsed HCI event.
public enum HCIEvent: Sendable, Equatable {
    case commandComplete(numPackets: UInt8, opcode: UInt16, returnParameters: [UInt8])
    case commandStatus(status: UInt8, numPackets: UInt8, opcode: UInt16)
    case hardwareError(code: UInt8)
    case advertisingReports(AdvertisingReports)
    /// BlueZ device event (REG=1, UNREG=2, UP=3, DOWN=4) for `devID`.
    case deviceEvent(event: UInt16, devID: UInt16)
    /// LE Meta subevents we do not interpret.
    case leMetaOther(subevent: UInt8, parameters: [UInt8])
    case unknown(code: UInt8, parameters: [UInt8])
}

/// Why an event was rejected. Malformed events are counted and dropped, never half-trusted.
public enum HCIParseError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case notAnEvent(indicator: UInt8)
    case shortHeader(Int)
    case lengthMismatch(declared: Int, actual: Int)
    case tooShort(event: String, need: Int, have: Int)
    case badReport(event: String, index: Int, reason: String)
    case trailingBytes(event: String, count: Int)

    public var description: String {
        switch self {
        case .empty: "empty packet"
        case .notAnEvent(let i): "packet indicator 0x\(Hex.encode([i])) is not an HCI event (0x04)"
        case .shortHeader(let n): "event header of \(n) bytes, need 2"
        case .lengthMismatch(let d, let a): "invalid packet size: parameter length says \(d), \(a) present"
        case .tooShort(let e, let need, let have): "\(e): \(have) parameter bytes, need at least \(need)"
        case .badReport(let e, let i, let r): "\(e): report \(i + 1): \(r)"
        case .trailingBytes(let e, let n): "\(e): \(n) bytes after the last report"
        }
    }
}

extension HCIEvent {
    /// A row of the dispatch table: code, spec name, minimum parameter length, field parser.
    struct Row: Sendable {
        let code: UInt8
        /// Static text: a row is read for every packet, and a `String` would be retained each time.
        let name: StaticString
        let minLength: Int
        let parse: @Sendable (ArraySlice<UInt8>) -> Result<HCIEvent, HCIParseError>
    }

    /// Indexed by event code (256 slots): a lookup per packet costs an index, not a hash.
    static let table: [Row?] = {
        let rows: [Row] = [
            Row(code: HCIEventCode.commandComplete, name: "Command Complete", minLength: 3) { p in
                .success(.commandComplete(numPackets: p.u8(0), opcode: p.le16(1), returnParameters: Array(p.dropFirst(3))))
            },
            Row(code: HCIEventCode.commandStatus, name: "Command Status", minLength: 4) { p in
                .success(.commandStatus(status: p.u8(0), numPackets: p.u8(1), opcode: p.le16(2)))
            },
            Row(code: HCIEventCode.hardwareError, name: "Hardware Error", minLength: 1) { p in
                .success(.hardwareError(code: p.u8(0)))
            },
            Row(code: HCIEventCode.leMeta, name: "LE Meta", minLength: 1, parse: parseLEMeta),
            Row(code: HCIEventCode.stackInternal, name: "Stack Internal", minLength: 2) { p in
                // Only device events (type 1, then 4 bytes) are interpreted.
                if p.le16(0) == 0x0001, p.count == 6 {
                    return .success(.deviceEvent(event: p.le16(2), devID: p.le16(4)))
                }
                return .success(.unknown(code: HCIEventCode.stackInternal, parameters: Array(p)))
            },
        ]
        var byCode = [Row?](repeating: nil, count: 256)
        for r in rows { byCode[Int(r.code)] = r }
        return byCode
    }()

    /// Parses an event packet that starts with the event code (no H4 indicator).
    public static func parse(_ packet: ArraySlice<UInt8>) -> Result<HCIEvent, HCIParseError> {
        guard packet.count >= 2 else { return .failure(packet.isEmpty ? .empty : .shortHeader(packet.count)) }
        let code = packet.u8(0)
        let declared = Int(packet.u8(1))
        let params = packet.dropFirst(2)
        guard params.count == declared else { return .failure(.lengthMismatch(declared: declared, actual: params.count)) }
        // Nearly every packet a scanner receives is an LE Meta event (its minimum length is 1):
        // parsed without a trip through the table's closure.
        if code == HCIEventCode.leMeta, !params.isEmpty { return parseLEMeta(params) }
        guard let row = table[Int(code)] else { return .success(.unknown(code: code, parameters: Array(params))) }
        guard params.count >= row.minLength else {
            return .failure(.tooShort(event: "\(row.name)", need: row.minLength, have: params.count))
        }
        return row.parse(params)
    }

    public static func parse(_ packet: [UInt8]) -> Result<HCIEvent, HCIParseError> { parse(packet[...]) }

    /// Parses an event with or without the H4 packet indicator (0x04). A leading byte that is an
    /// event code we know is taken as the code; 0x04 is taken as the indicator (0x04 is not an event
    /// code a scanner receives).
    public static func parse(h4 packet: [UInt8]) -> Result<HCIEvent, HCIParseError> {
        withoutIndicator(h4: packet).flatMap { parse($0) }
    }

    /// The event packet without its H4 indicator, if it has one (see `parse(h4:)`).
    public static func withoutIndicator(h4 packet: [UInt8]) -> Result<ArraySlice<UInt8>, HCIParseError> {
        guard let first = packet.first else { return .failure(.empty) }
        if first == 0x04 { return .success(packet.dropFirst()) }
        if first == 0x01 || first == 0x02 || first == 0x03 { return .failure(.notAnEvent(indicator: first)) }
        return .success(packet[...])
    }

    private static func parseLEMeta(_ p: ArraySlice<UInt8>) -> Result<HCIEvent, HCIParseError> {
        let sub = p.u8(0)
        switch sub {
        case LEMetaSubevent.advertisingReport, LEMetaSubevent.extendedAdvertisingReport:
            let extended = sub == LEMetaSubevent.extendedAdvertisingReport
            var starts = InlinePositions()
            let event = extended ? "LE Extended Advertising Report" : "LE Advertising Report"
            if let e = checkReports(p, extended: extended, &starts).error(event) { return .failure(e) }
            return .success(.advertisingReports(AdvertisingReports(body: p, extended: extended, starts: starts)))
        default: return .success(.leMetaOther(subevent: sub, parameters: Array(p.dropFirst())))
        }
    }

    /// Six HCI-order (little-endian) bytes as an address. Not `BDAddress(littleEndian:)`: that one is
    /// generic and, called across the module boundary once per report, unspecialised (measured: it
    /// dominated replay time).
    @inline(__always) static func leAddress(_ b: ArraySlice<UInt8>) -> BDAddress {
        var v: UInt64 = 0
        for i in (0..<6).reversed() { v = v << 8 | UInt64(b[b.startIndex + i]) }
        return BDAddress(rawValue: v)
    }

    /// What checking an event's reports found. Its values are plain numbers, so that checking
    /// every packet leaves nothing to destroy; `error(_:)` puts a failure into words.
    enum ReportCheck: Equatable {
        case ok
        case empty
        case noReports
        case headerRunsPast(report: Int)
        case dataTooLong(report: Int, length: Int)
        case dataRunsPast(report: Int, length: Int)
        case trailingBytes(Int)

        func error(_ event: String) -> HCIParseError? {
            switch self {
            case .ok: nil
            case .empty: .tooShort(event: event, need: 1, have: 0)
            case .noReports: .badReport(event: event, index: 0, reason: "num_reports is 0")
            case .headerRunsPast(let i): .badReport(event: event, index: i, reason: "header runs past the event")
            case .dataTooLong(let i, let n): .badReport(event: event, index: i, reason: "data length \(n) > 31")
            case .dataRunsPast(let i, let n):
                .badReport(event: event, index: i, reason: "data length \(n) runs past the event")
            case .trailingBytes(let n): .trailingBytes(event: event, count: n)
            }
        }
    }

    /// Checks the reports of an advertising report event and records where each starts.
    /// Legacy layout (§7.7.65.2): 9 bytes before the data (at most 31), the RSSI after it.
    /// Extended layout (§7.7.65.13): 24 bytes before the data.
    /// `body`: the LE Meta parameters, subevent code first (not sliced off: a slice per event costs
    /// a reference count round trip).
    static func checkReports(_ body: ArraySlice<UInt8>, extended: Bool, _ starts: inout InlinePositions) -> ReportCheck {
        guard body.count >= 2 else { return .empty }
        let count = body[body.startIndex + 1]
        guard count >= 1 else { return .noReports }
        let header = extended ? 24 : 9  // bytes before the data; its length is the last of them
        let trailer = extended ? 0 : 1  // the legacy RSSI
        var at = body.startIndex + 2
        for i in 0..<Int(count) {
            guard body.endIndex - at >= header else { return .headerRunsPast(report: i) }
            let len = Int(body[at + header - 1])
            if !extended, len > 31 { return .dataTooLong(report: i, length: len) }
            guard body.endIndex - at >= header + len + trailer else { return .dataRunsPast(report: i, length: len) }
            starts.append(
                InlinePositions.Entry(type: extended ? 1 : 0, offset: at - body.startIndex, length: header + len + trailer))
            at += header + len + trailer
        }
        guard at == body.endIndex else { return .trailingBytes(body.endIndex - at) }
        return .ok
    }
}

/// The reports of one advertising report event, read on access from the event's bytes: the parser
/// checked every report's lengths and recorded where the first four start (an event of more is
/// checked again for the rest), so an element is a few loads and a view of its data, and an event
/// costs no allocation on its way to the decoders.
public struct AdvertisingReports: RandomAccessCollection, Sendable, Equatable {
    /// The LE Meta parameters (subevent code, num_reports, reports).
    let body: ArraySlice<UInt8>
    let extended: Bool
    /// Invariant: each entry is a whole report inside `body`, of the layout `extended` says.
    let starts: InlinePositions

    public var startIndex: Int { 0 }
    public var endIndex: Int { starts.count }

    public subscript(k: Int) -> AdvertisingReport {
        if !extended {
            let (header, data) = legacyAdvertisement(k, timeMicros: 0)
            let start = body.startIndex
            return AdvertisingReport(
                eventType: header.eventType, addressType: header.addressType.rawValue, address: header.address,
                rssi: header.rssi, data: body[(start + data.lowerBound)..<(start + data.upperBound)],
                primaryPHY: nil, secondaryPHY: nil, sid: nil, txPower: nil, dataStatus: .complete)
        }
        let entry = starts.holds(k) ? starts[k] : entryByChecking(k)
        let at = body.startIndex + entry.offset
        let end = at + entry.length
        let b = body
        let eventType = UInt16(b[at]) | UInt16(b[at + 1]) << 8
        let phy2 = b[at + 10]
        let sid = b[at + 11]
        let tx = Int8(bitPattern: b[at + 12])
        let rssi = Int8(bitPattern: b[at + 13])
        return AdvertisingReport(
            eventType: eventType, addressType: b[at + 2], address: HCIEvent.leAddress(b[(at + 3)..<(at + 9)]),
            rssi: rssi == 127 ? nil : rssi, data: b[(at + 24)..<end], primaryPHY: b[at + 9],
            secondaryPHY: phy2 == 0 ? nil : phy2, sid: sid == 0xFF ? nil : sid, txPower: tx == 127 ? nil : tx,
            dataStatus: AdvertisingReport.DataStatus(rawValue: UInt8((eventType >> 5) & 0x3))!)
    }

    /// The `k`-th report of a legacy event (`extended` false; always whole) as its advertisement's
    /// header, and where its data lies in `body`, counted from its start (as in `body.span`): read
    /// straight from the event's bytes, making no `AdvertisingReport` and no slice, whose copy
    /// of a reference to the packet is two atomic operations per advertisement.
    @inline(__always) func legacyAdvertisement(
        _ k: Int, timeMicros: Int64
    ) -> (header: AdvertisementHeader, data: Range<Int>) {
        let entry = starts.holds(k) ? starts[k] : entryByChecking(k)
        let b = body.span
        let at = entry.offset
        let end = at + entry.length
        let rssi = b.i8(end - 1)
        let header = AdvertisementHeader(
            address: b.macLE(at + 2), addressType: AddressType(rawValue: b[at + 1]), eventType: UInt16(b[at]),
            rssi: rssi == 127 ? nil : rssi, timeMicros: timeMicros)
        return (header, (at + 9)..<(end - 1))
    }

    /// Where the `k`-th report starts, past the four `starts` holds: the event checked again with a
    /// later window (an event of more than four reports is rare; see `InlinePositions`).
    @inline(never) private func entryByChecking(_ k: Int) -> InlinePositions.Entry {
        var later = InlinePositions(window: InlinePositions.window(holding: k))
        let check = HCIEvent.checkReports(body, extended: extended, &later)
        precondition(check == .ok, "an event that checked .ok checks .ok again (checkReports is pure)")
        return later[k]
    }

    public static func == (a: AdvertisingReports, b: AdvertisingReports) -> Bool { a.elementsEqual(b) }
}
