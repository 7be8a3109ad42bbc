/// A ceiling on events a minute, over all devices: anyone in range can advertise a "new press"
/// in every frame (a new packet id each time), and each event is a stored row and maybe a command.
/// Real buttons stay far below it. Beyond it events are dropped, and the caller says so once per
/// window.
///
/// Fixed window of `windowSeconds` on the loop's clock; state is two numbers.
struct EventRateLimit {
    let maxPerWindow: Int
    let windowSeconds: Double
    private var windowStart = -Double.infinity
    private var count = 0
    private(set) var dropped = 0
    /// Drops in the current window (0 or more), for "said once per window".
    private(set) var droppedInWindow = 0

    init(maxPerWindow: Int = 600, windowSeconds: Double = 60) {
        self.maxPerWindow = maxPerWindow
        self.windowSeconds = windowSeconds
    }

    /// Whether one more event at `now` is let through.
    mutating func admit(now: Double) -> Bool {
        if now - windowStart >= windowSeconds || now < windowStart {
            windowStart = now
            count = 0
            droppedInWindow = 0
        }
        guard count < maxPerWindow else {
            dropped += 1
            droppedInWindow += 1
            return false
        }
        count += 1
        return true
    }
}
