import Testing

@testable import blesensor_log

@Suite struct EventRateLimitTests {
    @Test func atMostTheCeilingPerWindowThenANewWindow() {
        var limit = EventRateLimit(maxPerWindow: 3, windowSeconds: 10)
        let first = (0..<5).map { limit.admit(now: Double($0)) }
        #expect(first == [true, true, true, false, false])
        #expect(limit.dropped == 2 && limit.droppedInWindow == 2)
        let next = limit.admit(now: 10)
        #expect(next)
        #expect(limit.droppedInWindow == 0)
        #expect(limit.dropped == 2)
    }

    /// A clock that went back (a capture joined to another) starts a new window rather than
    /// blocking until it catches up.
    @Test func aClockGoingBackStartsANewWindow() {
        var limit = EventRateLimit(maxPerWindow: 1, windowSeconds: 60)
        let answers = [100.0, 101, 50].map { limit.admit(now: $0) }
        #expect(answers == [true, false, true])
    }
}
