import SensorDecode

/// Reading `k` of the deterministic stream that `store-torture` writes and the store tests check:
/// sensor `k % sensors` at `start + (k / sensors) * step`. Values are exact in the codec's scaled
/// kinds, so a test can compare what was stored with `==`.
public func tortureReading(_ k: Int, sensors: Int, start: Int64 = 1_700_000_000_000_000, step: Int64 = 60_000_000)
    -> Reading
{
    let s = k % sensors
    let j = k / sensors
    return Reading(
        address: BDAddress(rawValue: 0xC0FF_EE00_0000 + UInt64(s)), addressType: .publicDevice, decoderID: "torture",
        model: "T-\(s % 3)",
        measurements: [
            Measurement(.temperatureC, Double((k * 7) % 5000 - 1000) / 100),
            Measurement(.humidityPercent, Double(k % 1000) / 10),
            Measurement(.batteryPercent, Double(k % 101)),
        ], timeMicros: start + Int64(j) * step, rssi: Int8(-40 - s % 50))
}
