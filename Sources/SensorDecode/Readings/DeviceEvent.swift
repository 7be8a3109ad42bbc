/// Something a device *did* rather than measured: a button pressed, a dimmer turned, a GATT
/// notification. Decoders put events on the reading of the frame that carried them; the event
/// deduper (`EventDeduper`) makes one press out of a burst of repeats, and actions run on what it
/// lets through.
///
/// Values are a closed vocabulary per kind (`press`, `double_press`, `rotate_left:3`, hex), never
/// bytes of the frame as text: they go into stored rows and into commands' environments.
public struct DeviceEvent: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A button: `press`, `double_press`, `triple_press`, `long_press`, `long_double_press`,
        /// `long_triple_press`, `hold_press` (BTHome's names; other formats map onto them).
        case button
        /// A rotary dimmer: `rotate_left:N` / `rotate_right:N`, N steps.
        case dimmer
        /// A GATT notification: the value's bytes as lowercase hex.
        case notify
    }

    public var kind: Kind
    public var value: String
    /// The frame's own packet id or frame counter, when its format has one (BTHome object 0x00,
    /// MiBeacon's frame counter): repeats of one frame in a burst share it.
    public var packetID: Int?
    /// Whether the frame that carried it was encrypted and authenticated (a rule can require it:
    /// an address alone can be spoofed).
    public var encrypted: Bool

    public init(_ kind: Kind, _ value: String, packetID: Int? = nil, encrypted: Bool = false) {
        self.kind = kind
        self.value = value
        self.packetID = packetID
        self.encrypted = encrypted
    }

    public var description: String { "\(kind.rawValue) \(value)" }
}

extension Reading {
    /// Adds an event.
    public mutating func fire(_ event: DeviceEvent) {
        events.append(event)
    }
}
