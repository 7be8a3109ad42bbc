import SensorDecode
import Testing

@Suite struct IBeaconTests {
    let decoder = IBeaconDecoder()

    @Test func headerSampleNamesTheBeacon() {
        let r = Kit.readings(
            Kit.decode(decoder, Kit.bytes("1aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5")))
        #expect(r.count == 1)
        #expect(r.first?.model == "iBeacon")
        #expect(r.first?.frameKind == "e2c56db5-dffb-48d2-b060-d0f5a71096e0/1/2")
        #expect(r.first?.measurements.isEmpty == true)
    }

    /// The frame kind is written digit by digit; every width of major and minor, against the
    /// UUID's own text and `String(_:)`.
    @Test func frameKindAtEveryNumberWidth() {
        let uuid = "0123456789abcdeffedcba9876543210"
        for major in [0, 9, 10, 99, 100, 999, 1_000, 9_999, 10_000, 65_535] {
            for minor in [0, 7, 42, 512, 4_096, 65_534] {
                let hex = "1aff4c000215" + uuid + String(format4: major) + String(format4: minor) + "c5"
                let r = Kit.readings(Kit.decode(decoder, Kit.bytes(hex)))
                #expect(r.first?.frameKind == "01234567-89ab-cdef-fedc-ba9876543210/\(major)/\(minor)")
            }
        }
    }

    @Test func otherAppleTypesAndCompaniesAreNotMine() {
        #expect(Kit.decode(decoder, Kit.bytes("07ff4c0010020b00")) == .notMine)  // "Nearby"
        #expect(
            Kit.decode(decoder, Kit.bytes("1aff59000215e2c56db5dffb48d2b060d0f5a71096e000010002c5")) == .notMine)
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        let whole = Kit.bytes("1aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5")
        for n in 0..<whole.count {
            var ad = Array(whole.prefix(n))
            if n > 0 { ad[0] = UInt8(n - 1) }  // keep the AD framing consistent
            let outcome = Kit.decode(decoder, ad)
            #expect(n < 6 ? outcome == .notMine : Kit.isMalformed(outcome), "\(n) bytes: \(outcome)")
        }
    }

    /// Every peer record with an iBeacon (Tilt, Jaalee, HolyIOT, Teltonika, …) is named as one.
    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerRecordsWithIBeaconsAreNamed() {
        let beacons = PeerVector.all.filter {
            guard let md = AdvertisingData(parsing: $0.adBytes).manufacturerData(company: 0x004C) else { return false }
            return md.array.starts(with: [0x02, 0x15])
        }
        #expect(beacons.count >= 10)
        for v in beacons {
            #expect(
                Kit.readings(Kit.decode(decoder, v.adBytes, from: v.address)).first?.model == "iBeacon", "\(v)")
        }
    }
}

extension String {
    /// Four lower-case hex digits, big-endian.
    fileprivate init(format4 v: Int) {
        let digits = String(v, radix: 16)
        self = String(repeating: "0", count: 4 - digits.count) + digits
    }
}
