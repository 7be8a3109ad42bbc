import SensorDecode
import Testing

/// Mirrors Decoders/Sensirion.swift.
@Suite struct SensirionTests {
    let decoder = SensirionDecoder()
    /// The header's sample (SCD4x gadget, sample type 10).
    let sample = Kit.bytes("000ae2e733339dc4e902")

    func ad(_ payload: [UInt8]) -> [UInt8] { Kit.manufacturer(0x06D5, payload) }

    @Test func headerSampleDecodes() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(sample))))
        #expect(r.model == "SCD4x gadget")
        Kit.expectClose(r.value(.temperatureC), -10.0, tolerance: 0.001, "temperature")
        Kit.expectClose(r.value(.humidityPercent), 76.80, tolerance: 0.005, "humidity")
        #expect(r.value(.co2PPM) == 745)
    }

    @Test func sht4xSampleUsesItsHumidityFormulaAndName() throws {
        // raw humidity 0x651C: −6 + 125 · 25884 / 65535 = 43.37 %, not 100 · raw / 65535 = 39.50 %.
        let data = ad(Kit.bytes("0006e2e7036a1c65")) + Kit.name("SHT41 Gadget")
        let r = try #require(Kit.reading(Kit.decode(decoder, data)))
        #expect(r.model == "SHT41 Gadget")
        Kit.expectClose(r.value(.temperatureC), 27.47, tolerance: 0.005, "temperature")
        Kit.expectClose(r.value(.humidityPercent), 43.37, tolerance: 0.005, "humidity")
        #expect(r.value(.co2PPM) == nil)
    }

    @Test func builtFrameBelowZero() throws {
        // raw 9362: −45 + 175 · 9362 / 65535 = −20.00 °C; raw humidity 0 → −6 %, clamped to 0.
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(Kit.bytes("0006123492240000")))))
        Kit.expectClose(r.value(.temperatureC), -20.0, tolerance: 0.001, "temperature")
        #expect(r.value(.humidityPercent) == 0)
    }

    @Test func pm25SampleType() throws {
        let r = try #require(Kit.reading(Kit.decode(decoder, ad(Kit.bytes("000c1234333300800004ffff")))))
        #expect(r.value(.co2PPM) == 1024)
        Kit.expectClose(r.value(.pm25UgM3), 1000, "pm2.5")
        Kit.expectClose(r.value(.humidityPercent), 50.0, tolerance: 0.001, "humidity")
    }

    @Test func otherTypesAndCompaniesAreNotMine() {
        #expect(Kit.decode(decoder, Kit.manufacturer(0x06D6, sample)) == .notMine)
        #expect(Kit.decode(decoder, ad([0x01] + sample.dropFirst())) == .notMine)  // not a measurement sample
        #expect(Kit.decode(decoder, ad([0x00, 0x16] + sample.dropFirst(2))) == .notMine)  // VOC/NOx: not decoded
    }

    @Test func aSampleCutShortIsMalformed() {
        #expect(Kit.isMalformed(Kit.decode(decoder, ad(Array(sample.prefix(9))))))
    }

    @Test func noTruncatedFrameYieldsAMeasurement() {
        Kit.truncations(decoder, value: sample) { ad($0) }
        Kit.truncations(decoder, value: Kit.bytes("0006e2e7036a1c65")) { ad($0) }
    }

    @Test(.enabled(if: PeerVector.isAvailable, PeerVector.skipMessage))
    func peerVectorsMatch() {
        let devices: Set = ["SHT4X", "SCD4X", "Sensirion / MyCO2", "Sensirion / SHT40 Gadget"]
        Kit.checkVectors(PeerVector.all.filter { devices.contains($0.device) })
    }
}
