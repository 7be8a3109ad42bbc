import AdvScanner
import Testing

/// The discovery conversation against GATT servers written as tables of handles: the client
/// asks, a tiny server built from the table answers as the spec says (one entry per response, or
/// all that fit), until subscribed or failed.
@Suite struct GATTSubscriptionTests {
    /// An attribute of the toy server: handle, type, value.
    struct Attribute {
        var handle: UInt16
        var type: GATTUUID
        var value: [UInt8]
    }

    /// RFduino's layout as Bumble builds it: GAP and GATT services, then 0x2220 with 0x2221
    /// (read, notify) and its CCCD at value + 1.
    static func rfduino(cccd: Bool = true, properties: UInt8 = 0x12, extraCharacteristic: Bool = false) -> [Attribute] {
        var a: [Attribute] = [
            Attribute(handle: 1, type: .uuid16(0x2800), value: [0x00, 0x18]),
            Attribute(handle: 2, type: .uuid16(0x2803), value: [0x02, 0x03, 0x00, 0x00, 0x2A]),
            Attribute(handle: 3, type: .uuid16(0x2A00), value: Array("RFduino".utf8)),
            Attribute(handle: 4, type: .uuid16(0x2800), value: [0x01, 0x18]),
            Attribute(handle: 5, type: .uuid16(0x2800), value: [0x20, 0x22]),
            Attribute(handle: 6, type: .uuid16(0x2803), value: [properties, 0x07, 0x00, 0x21, 0x22]),
            Attribute(handle: 7, type: .uuid16(0x2221), value: [0xFF]),
        ]
        if cccd { a.append(Attribute(handle: 8, type: .uuid16(0x2902), value: [0, 0])) }
        if extraCharacteristic {
            a.append(Attribute(handle: 9, type: .uuid16(0x2803), value: [0x08, 0x0A, 0x00, 0x22, 0x22]))
            a.append(Attribute(handle: 10, type: .uuid16(0x2222), value: []))
        }
        return a
    }

    /// Answers a request from the table, `perResponse` entries at most.
    static func answer(_ req: [UInt8], _ table: [Attribute], perResponse: Int) -> [UInt8] {
        let start = UInt16(req[1]) | UInt16(req[2]) << 8
        let end = req.count >= 5 ? UInt16(req[3]) | UInt16(req[4]) << 8 : 0
        func notFound() -> [UInt8] { [0x01, req[0], req[1], req[2], 0x0A] }
        func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        switch req[0] {
        case 0x10:  // services: each runs to the next service's handle - 1, the last to 0xFFFF
            let services = table.filter { $0.type == .uuid16(0x2800) }
            let hits = services.enumerated().filter { $0.element.handle >= start }.prefix(perResponse)
            guard !hits.isEmpty else { return notFound() }
            let length = UInt8(4 + hits.first!.element.value.count)
            return [0x11, length] + hits.flatMap { i, s in
                let endGroup = i + 1 < services.count ? services[i + 1].handle - 1 : 0xFFFF
                return u16(s.handle) + u16(endGroup) + s.value
            }
        case 0x08:
            let hits = table.filter { $0.type == .uuid16(0x2803) && $0.handle >= start && $0.handle <= end }.prefix(perResponse)
            guard !hits.isEmpty else { return notFound() }
            return [0x09, UInt8(2 + hits.first!.value.count)] + hits.flatMap { u16($0.handle) + $0.value }
        case 0x04:
            let hits = table.filter { $0.handle >= start && $0.handle <= end }.prefix(perResponse)
            guard !hits.isEmpty else { return notFound() }
            return [0x05, 0x01] + hits.flatMap { a -> [UInt8] in
                guard case .uuid16(let t) = a.type else { return [] }
                return u16(a.handle) + u16(t)
            }
        case 0x12: return [0x13]
        default: return [0x01, req[0], 0, 0, 0x06]
        }
    }

    /// Runs the conversation; returns the final state and the requests sent.
    static func converse(_ table: [Attribute], perResponse: Int) -> (GATTSubscription.State, [[UInt8]]) {
        var s = GATTSubscription(service: .uuid16(0x2220), characteristic: .uuid16(0x2221))
        var sent = [s.start()]
        var pending = sent
        while let req = pending.popLast(), sent.count < 100 {
            let step = s.handle(try! ATTPDU.parse(answer(req, table, perResponse: perResponse)))
            sent += step.send
            pending += step.send
        }
        return (s.state, sent)
    }

    @Test(arguments: [1, 2, 8])
    func theRFduinoRemoteIsFoundAndSubscribed(perResponse: Int) {
        let (state, sent) = Self.converse(Self.rfduino(), perResponse: perResponse)
        #expect(state == .subscribed(valueHandle: 7))
        #expect(sent.last == [0x12, 0x08, 0x00, 0x01, 0x00])
        // Found by UUID, not at a fixed handle: a layout shifted by 16 works the same.
        let shifted = Self.rfduino().map { a in
            var a = a
            a.handle += 16
            if a.type == .uuid16(0x2803) { a.value[1] += 16 }
            return a
        }
        #expect(Self.converse(shifted, perResponse: perResponse).0 == .subscribed(valueHandle: 23))
    }

    @Test func theDescriptorsEndAtTheNextDeclaration() {
        let (state, sent) = Self.converse(Self.rfduino(cccd: false, extraCharacteristic: true), perResponse: 1)
        #expect(state == .failed("characteristic 2221 has no CCCD (0x2902)"))
        // The CCCD search stayed within 8…8 (the next declaration is at 9).
        #expect(sent.contains([0x04, 0x08, 0x00, 0x08, 0x00]))
    }

    @Test func anIndicateOnlyCharacteristicIsEnabledForIndications() {
        let (state, sent) = Self.converse(Self.rfduino(properties: 0x22), perResponse: 8)
        #expect(state == .subscribed(valueHandle: 7))
        #expect(sent.last == [0x12, 0x08, 0x00, 0x02, 0x00])
    }

    @Test(arguments: [
        (GATTSubscriptionTests.rfduino().filter { $0.handle != 5 }, "no service 2220"),
        (GATTSubscriptionTests.rfduino().filter { $0.handle != 6 }, "no characteristic 2221 in service 2220"),
        (GATTSubscriptionTests.rfduino(properties: 0x02), "characteristic 2221 neither notifies nor indicates"),
        (GATTSubscriptionTests.rfduino(cccd: false), "characteristic 2221 has no CCCD (0x2902)"),
    ])
    func whatIsMissingIsSaid(_ table: [Attribute], _ why: String) {
        #expect(Self.converse(table, perResponse: 2).0 == .failed(why))
    }

    @Test func onlyTheSubscribedHandlesNotificationsCount() {
        var s = GATTSubscription(service: .uuid16(0x2220), characteristic: .uuid16(0x2221))
        // Before subscribing, a notification is nothing; a request of the peer's is refused.
        _ = s.start()
        #expect(s.handle(.notification(handle: 7, value: [0])) == GATTSubscription.Step())
        #expect(s.handle(.request(opcode: 0x0A)).send == [[0x01, 0x0A, 0x00, 0x00, 0x06]])
        var sent = [s.start()]
        let table = Self.rfduino()
        while let req = sent.popLast() {
            sent += s.handle(try! ATTPDU.parse(Self.answer(req, table, perResponse: 8))).send
        }
        #expect(s.isSubscribed)
        #expect(s.handle(.notification(handle: 7, value: [0x01])).values == [[0x01]])
        #expect(s.handle(.notification(handle: 3, value: [0x01])).values == [])
        let ind = s.handle(.indication(handle: 7, value: [0x00]))
        #expect(ind.values == [[0x00]] && ind.send == [[0x1E]])
    }

    /// A server whose handles go backwards cannot keep discovery going round.
    @Test func handlesThatDoNotAdvanceEndDiscovery() {
        var s = GATTSubscription(service: .uuid16(0x2220), characteristic: .uuid16(0x2221))
        _ = s.start()
        _ = s.handle(.readByGroupTypeResponse([(handle: 5, end: 9, value: [0x00, 0x18])]))
        #expect(s.state == .findService(next: 10))
        _ = s.handle(.readByGroupTypeResponse([(handle: 3, end: 4, value: [0x01, 0x18])]))
        #expect(s.state == .failed("service handles do not advance"))
        var t = GATTSubscription(service: .uuid16(0x2220), characteristic: .uuid16(0x2221))
        _ = t.start()
        _ = t.handle(.error(request: 0x10, handle: 1, code: 0x05))
        #expect(t.state == .failed("the remote answered with ATT error 0x5"))
    }
}
