import Testing

@testable import SensorStore

/// `TrustedTime`'s rules (StoreClock.swift): what wall time the store trusts from samples of both clocks.
@Suite struct StoreClockTests {
    let start = june2026Micros

    @Test func theFirstSampleAndOrdinaryTimeAreTrustedAsTheyAre() {
        var t = TrustedTime(settleSeconds: 60)
        #expect(t.now(wall: start, monotonic: 100) == start)
        #expect(t.now(wall: start + 5_000_000, monotonic: 105) == start + 5_000_000)
        // Slewed by NTP: a second off over a while is still the clock.
        #expect(t.now(wall: start + 10_900_000, monotonic: 110) == start + 10_900_000)
    }

    @Test func aJumpAheadForSecondsIsNotTrusted() {
        var t = TrustedTime(settleSeconds: 60)
        _ = t.now(wall: start, monotonic: 100)
        let future: Int64 = 4_102_444_800_000_000  // 2100-01-01
        for s in 1...3 {
            #expect(t.now(wall: future + Int64(s) * 1_000_000, monotonic: 100 + Double(s)) == start + Int64(s) * 1_000_000)
        }
        // Back to the right time: trusted at once.
        #expect(t.now(wall: start + 4_000_000, monotonic: 104) == start + 4_000_000)
    }

    @Test func aStepAheadThatHoldsIsTrustedAfterTheSettleTime() {
        var t = TrustedTime(settleSeconds: 60)
        _ = t.now(wall: start, monotonic: 0)
        let step: Int64 = 3_600_000_000  // NTP synchronised an hour ahead
        #expect(t.now(wall: start + step + 1_000_000, monotonic: 1) == start + 1_000_000)
        #expect(t.now(wall: start + step + 59_000_000, monotonic: 59) == start + 59_000_000)
        #expect(t.now(wall: start + step + 61_000_000, monotonic: 61) == start + step + 61_000_000)
        #expect(t.now(wall: start + step + 62_000_000, monotonic: 62) == start + step + 62_000_000)
    }

    @Test func aStepBackIsTrustedAtOnce() {
        var t = TrustedTime(settleSeconds: 60)
        _ = t.now(wall: start, monotonic: 0)
        #expect(t.now(wall: start - 3_600_000_000, monotonic: 1) == start - 3_600_000_000)
    }

    @Test func aClockReading1970CannotBeRight() {
        #expect(!TrustedTime.plausible(0))
        #expect(TrustedTime.plausible(start))
    }
}
