import SensorDecode
import Testing

@Suite struct EddystoneTLMTests {
    let decoder = EddystoneTLMDecoder()

    @Test func headerSampleDecodes() {
        let outcome = Kit.decode(decoder, Kit.bytes("1116aafe20000bb8ff80000001000000 2710".filter { $0 != " " }))
        #expect(Kit.readings(outcome).first?.frameKind == "tlm")
        #expect(
            Kit.values(outcome) == ["voltage_v": 3.0, "temperature_c": -0.5, "packet_count": 256, "uptime_s": 1000])
    }

    @Test func negativeAndUnsupportedFields() {
        // −10.75 °C = 0xf540 (s8.8); battery 0 and temperature 0x8000 mean "not supported"
        let v = Kit.values(
            Kit.decode(decoder, uuid: 0xFEAA, "20000c0df54000000001000000 0a".filter { $0 != " " }))
        #expect(v["temperature_c"] == -10.75 && v["voltage_v"] == 3.085)
        let none = Kit.values(
            Kit.decode(decoder, uuid: 0xFEAA, "20000000800000000001000000 0a".filter { $0 != " " }))
        #expect(none == ["packet_count": 1, "uptime_s": 1])
    }

    @Test func wrongLengthIsMalformed() {
        #expect(Kit.isMalformed(Kit.decode(decoder, uuid: 0xFEAA, "20000c0df540000000010000000a00")))
    }

    @Test func otherFramesAndSelectorsAreNotMine() {
        #expect(Kit.decode(decoder, uuid: 0xFEAA, "21010b0c0df540ff95fe69fc80") == .notMine)  // KKM vendor frame
        #expect(Kit.decode(decoder, uuid: 0xFEAA, "10ec0067656f0a") == .notMine)  // URL
        #expect(Kit.decode(decoder, uuid: 0xFEAA, "2001" + String(repeating: "00", count: 16)) == .notMine)  // eTLM
        #expect(Kit.decode(decoder, uuid: 0xFEAB, "20000c0df54000000001000000 0a".filter { $0 != " " }) == .notMine)
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        let outcomes = Kit.everyTruncation(
            decoder, uuid: 0xFEAA, Kit.bytes("20000bb8ff8000000100000027 10".filter { $0 != " " }))
        for (n, outcome) in outcomes.enumerated() {
            #expect(n < 2 ? outcome == .notMine : Kit.isMalformed(outcome), "\(n) bytes: \(outcome)")
        }
    }

    /// The `other` records with 0xFEAA data are KKM/KSensor vendor frames (type 0x21), not TLM.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func vendorFramesOnFEAAAreNotMine() {
        let feaa = PeerVector.all.filter { AdvertisingData(parsing: $0.adBytes).serviceData(uuid16: 0xFEAA) != nil }
        #expect(feaa.count >= 20)
        for v in feaa { #expect(Kit.decode(decoder, v.adBytes, from: v.address) == .notMine, "\(v)") }
    }
}
