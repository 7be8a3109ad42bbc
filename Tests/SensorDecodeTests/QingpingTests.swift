import SensorDecode
import Testing

@Suite struct QingpingTests {
    let decoder = QingpingDecoder()

    @Test func headerSampleDecodes() {
        let outcome = Kit.decode(
            decoder, uuid: 0xFDCD, "080cbf6552342d580104f100ad01020125", from: BDAddress("58:2D:34:52:65:BF")!)
        let r = Kit.readings(outcome)
        #expect(r.first?.model == "CGD1")
        #expect(r.first?.warnings.isEmpty == true)
        #expect(Kit.values(outcome) == ["temperature_c": 24.1, "humidity_pct": 42.9, "battery_pct": 37])
    }

    @Test func airMonitorAndBarometer() {
        // CGDN1: temperature/humidity, PM2.5/PM10, CO2 (theengs test_uuid[55] frame)
        let air = Kit.values(
            Kit.decode(decoder, uuid: 0xFDCD, "080eaabbccddeeff010422014c011204710072001302ed03"))
        #expect(
            air == [
                "temperature_c": 29.0, "humidity_pct": 33.2, "pm2_5_ug_m3": 113, "pm10_ug_m3": 114, "co2_ppm": 1005,
            ])
        // CGP1W: pressure u16 / 10
        let baro = Kit.values(Kit.decode(decoder, uuid: 0xFDCD, "08094c0140342d580104fc004a0207026627020120"))
        #expect(baro["pressure_hpa"] == 1008.6)
    }

    @Test func negativeTemperatureBuiltFromTheLayout() {
        // 0xff9c = −100 → −10.0 °C; humidity 0x0190 = 40.0 %
        let v = Kit.values(Kit.decode(decoder, uuid: 0xFDCD, "0807b24410342d5801049cff9001"))
        #expect(v == ["temperature_c": -10.0, "humidity_pct": 40.0])
    }

    @Test func motionIlluminanceOnlyOutsideEvents() {
        let plain = Kit.values(Kit.decode(decoder, uuid: 0xFDCD, "0812aabbccddeeff080401640000"))
        #expect(plain == ["motion": 1, "illuminance_lux": 100])
        let event = Kit.values(Kit.decode(decoder, uuid: 0xFDCD, "4812aabbccddeeff080401640000"))
        #expect(event == ["motion": 1])
    }

    @Test func mainsPoweredBatteryIsOmittedAndImpossibleValuesAreMalformed() {
        #expect(Kit.values(Kit.decode(decoder, uuid: 0xFDCD, "0807b24410342d580201ff")) == [:])
        #expect(Kit.isMalformed(Kit.decode(decoder, uuid: 0xFDCD, "0807b24410342d58020165")))  // 101 %
        // bit 7 is a flag, not part of the level (theengs test_uuid[61]: 0xAA → 42 %)
        #expect(Kit.values(Kit.decode(decoder, uuid: 0xFDCD, "0807b24410342d580201aa")) == ["battery_pct": 42])
        #expect(Kit.isMalformed(Kit.decode(decoder, uuid: 0xFDCD, "0807b24410342d580104ca00f103")))  // 100.9 %
    }

    @Test func tlvRunningPastTheFrame() {
        // first TLV cut: malformed; a cut TLV after a whole one: kept with a warning
        #expect(Kit.isMalformed(Kit.decode(decoder, uuid: 0xFDCD, "0807b24410342d580104ca00")))
        let mac = BDAddress("58:2D:34:10:44:B2")!
        let r = Kit.readings(Kit.decode(decoder, uuid: 0xFDCD, "0807b24410342d5802013801", from: mac))
        #expect(Kit.values(.readings(r)) == ["battery_pct": 56])
        #expect(r.first?.warnings.count == 1)
    }

    @Test func aTruncatedFrameKeepsWholeObjectsOnly() {
        let payload = Kit.bytes("080ea3808fe64854010422014c011204710072001302ed03")
        for outcome in Kit.everyTruncation(decoder, uuid: 0xFDCD, payload, layout: .objects) {
            if case .readings(let r) = outcome {
                for m in r.flatMap(\.measurements) { #expect([29.0, 33.2, 113, 114, 1005].contains(m.value)) }
            }
        }
    }

    @Test func otherSelectorsAreNotMine() {
        #expect(Kit.decode(decoder, uuid: 0xFDCE, "080cbf6552342d580104f100ad01020125") == .notMine)
        #expect(Kit.decode(decoder, uuid: 0xFE95, "080cbf6552342d580104f100ad01020125") == .notMine)
    }

    static let vectors = PeerVector.forFormats(["qingping_fdcd"])

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsArePresent() {
        #expect(Self.vectors.count >= 26, "expected 26 vectors, found \(Self.vectors.count)")
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage), arguments: vectors)
    func peerVector(_ v: PeerVector) {
        expectMatches(v, Kit.vectorValues(v, decoder))
        // The model we name is the one the peer names (its label may hold several, e.g. "CGC1/CGD1").
        let model = Kit.readings(Kit.decode(decoder, v.adBytes, from: v.address)).first?.model ?? "-"
        #expect(v.device.contains(model), "\(v): model \(model)")
    }
}
