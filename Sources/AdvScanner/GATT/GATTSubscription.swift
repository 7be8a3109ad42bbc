/// The client side of one remote's GATT conversation, pure: which request to send next, and what a
/// response means, from connect to "subscribed", then notifications. No fixed handles: the
/// service, the characteristic and its CCCD are discovered by UUID each time (a remote's firmware
/// update may move them).
///
/// States (one request outstanding at a time, as ATT allows):
/// ```
///  findService ──Read By Group Type (0x2800) from `next`──▶ found? ─no, more─▶ findService
///       │ found (start…end)                                        └─not found──▶ failed
///  findCharacteristic ──Read By Type (0x2803) in the service──▶ ours found, and the next
///       │ declaration (or the service end) bounds its descriptors                 ─▶ failed
///  findCCCD ──Find Information after the value handle──▶ 0x2902 found ─▶ enable ─▶ failed
///  enable ──Write Request 01 00 (notify) or 02 00 (indicate only)──▶ Write Response
///  subscribed ──Handle Value Notification/Indication of the value handle──▶ values
/// ```
/// Invariant: every `next` handle strictly grows within a state, so discovery ends on any
/// server, however it answers (a response whose handles do not advance is a failure).
public struct GATTSubscription: Sendable {
    public let service: GATTUUID
    public let characteristic: GATTUUID

    public enum State: Equatable, Sendable {
        case findService(next: UInt16)
        case findCharacteristic(next: UInt16, serviceEnd: UInt16, found: CharacteristicDeclaration?)
        case findCCCD(next: UInt16, end: UInt16, declaration: CharacteristicDeclaration)
        case enable(declaration: CharacteristicDeclaration, cccd: UInt16)
        case subscribed(valueHandle: UInt16)
        case failed(String)
    }

    public private(set) var state: State = .findService(next: 1)

    /// What `handle` gives back: bytes to send, and values notified.
    public struct Step: Equatable, Sendable {
        public var send: [[UInt8]] = []
        public var values: [[UInt8]] = []
        public init(send: [[UInt8]] = [], values: [[UInt8]] = []) {
            self.send = send
            self.values = values
        }
    }

    public init(service: GATTUUID, characteristic: GATTUUID) {
        self.service = service
        self.characteristic = characteristic
    }

    public var isSubscribed: Bool { if case .subscribed = state { true } else { false } }

    /// The first request, once connected.
    public mutating func start() -> [UInt8] {
        state = .findService(next: 1)
        return ATTPDU.readByGroupType(start: 1)
    }

    private mutating func fail(_ why: String) -> Step {
        state = .failed(why)
        return Step()
    }

    /// The request of the current state (after a response that asked for more).
    private func request() -> [UInt8]? {
        switch state {
        case .findService(let next): ATTPDU.readByGroupType(start: next)
        case .findCharacteristic(let next, let end, _): ATTPDU.readByType(start: next, end: end)
        case .findCCCD(let next, let end, _): ATTPDU.findInformation(start: next, end: end)
        case .enable(let d, let cccd):
            ATTPDU.write(handle: cccd, value: d.properties & CharacteristicDeclaration.notify != 0 ? [0x01, 0x00] : [0x02, 0x00])
        case .subscribed, .failed: nil
        }
    }

    /// Takes one PDU from the remote.
    public mutating func handle(_ pdu: ATTPDU) -> Step {
        // The peer's own requests are answered whatever our state; notifications count only once subscribed.
        switch pdu {
        case .request(let opcode): return Step(send: [ATTPDU.notSupported(opcode)])
        case .notification(let h, let v):
            if case .subscribed(let vh) = state, h == vh { return Step(values: [v]) }
            return Step()
        case .indication(let h, let v):
            if case .subscribed(let vh) = state, h == vh { return Step(send: [ATTPDU.confirmation], values: [v]) }
            return Step(send: [ATTPDU.confirmation])
        case .other: return Step()
        default: break
        }
        let notFound: Bool
        if case .error(_, _, let code) = pdu {
            guard code == ATTPDU.attributeNotFound else { return fail("the remote answered with ATT error 0x\(String(code, radix: 16))") }
            notFound = true
        } else {
            notFound = false
        }
        switch state {
        case .findService(let next):
            if notFound { return fail("no service \(service)") }
            guard case .readByGroupTypeResponse(let groups) = pdu else { return fail("unexpected answer to Read By Group Type") }
            var last = next
            for g in groups {
                guard g.handle >= last, g.end >= g.handle else { return fail("service handles do not advance") }
                if GATTUUID(attBytes: g.value[...]) == service {
                    state = .findCharacteristic(next: g.handle, serviceEnd: g.end, found: nil)
                    return Step(send: [request()!])
                }
                last = g.end
            }
            guard last < 0xFFFF else { return fail("no service \(service)") }
            state = .findService(next: last + 1)
        case .findCharacteristic(let next, let serviceEnd, let found):
            if notFound {
                guard let found else { return fail("no characteristic \(characteristic) in service \(service)") }
                return descriptors(of: found, end: serviceEnd)
            }
            guard case .readByTypeResponse(let entries) = pdu else { return fail("unexpected answer to Read By Type") }
            var last = next
            var ours = found
            for e in entries {
                guard e.handle >= last, e.handle <= serviceEnd else { return fail("characteristic handles do not advance") }
                last = e.handle
                guard let d = CharacteristicDeclaration(handle: e.handle, value: e.value) else {
                    return fail("a characteristic declaration of \(e.value.count) bytes")
                }
                // The declaration after ours bounds our descriptors.
                if let ours { return descriptors(of: ours, end: d.handle - 1) }
                if d.uuid == characteristic {
                    guard d.properties & (CharacteristicDeclaration.notify | CharacteristicDeclaration.indicate) != 0 else {
                        return fail("characteristic \(characteristic) neither notifies nor indicates")
                    }
                    ours = d
                }
            }
            guard last < serviceEnd else {
                guard let ours else { return fail("no characteristic \(characteristic) in service \(service)") }
                return descriptors(of: ours, end: serviceEnd)
            }
            state = .findCharacteristic(next: last + 1, serviceEnd: serviceEnd, found: ours)
        case .findCCCD(let next, let end, let d):
            if notFound { return fail("characteristic \(characteristic) has no CCCD (0x2902)") }
            guard case .findInformationResponse(let list) = pdu else { return fail("unexpected answer to Find Information") }
            var last = next
            for item in list {
                guard item.handle >= last, item.handle <= end else { return fail("descriptor handles do not advance") }
                last = item.handle
                if item.type == .uuid16(0x2902) {
                    state = .enable(declaration: d, cccd: item.handle)
                    return Step(send: [request()!])
                }
            }
            guard last < end else { return fail("characteristic \(characteristic) has no CCCD (0x2902)") }
            state = .findCCCD(next: last + 1, end: end, declaration: d)
        case .enable(let d, _):
            guard case .writeResponse = pdu else { return fail("the remote refused to enable notifications") }
            state = .subscribed(valueHandle: d.valueHandle)
            return Step()
        case .subscribed, .failed:
            return Step()
        }
        return Step(send: request().map { [$0] } ?? [])
    }

    private mutating func descriptors(of d: CharacteristicDeclaration, end: UInt16) -> Step {
        guard d.valueHandle < end else { return fail("characteristic \(characteristic) has no CCCD (0x2902)") }
        state = .findCCCD(next: d.valueHandle + 1, end: end, declaration: d)
        return Step(send: [request()!])
    }
}
