/// A measured quantity, named once for every layer: Swift code, JSON, SQL columns and CSV headers
/// all use `key`, which is snake_case with the unit last (`temperature_c`, `humidity_pct`).
///
/// The vocabulary is fixed here; a decoder that needs a new quantity adds it below, in the same
/// style. Keys are stored in databases, so an existing key is never renamed.
public struct Quantity: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let key: String
    /// Whole-number quantities (battery %, counts) print without a fraction.
    public let isInteger: Bool

    public init(_ key: String, integer: Bool = false) {
        self.key = key
        self.isInteger = integer
    }

    public var description: String { key }
    public static func < (a: Quantity, b: Quantity) -> Bool { a.key < b.key }

    public static let temperatureC = Quantity("temperature_c")
    public static let humidityPercent = Quantity("humidity_pct")
    public static let batteryPercent = Quantity("battery_pct", integer: true)
    public static let voltageV = Quantity("voltage_v")
    public static let pressureHPa = Quantity("pressure_hpa")
    public static let co2PPM = Quantity("co2_ppm")
    public static let tvocUgM3 = Quantity("tvoc_ug_m3")
    public static let pm25UgM3 = Quantity("pm2_5_ug_m3")
    public static let pm10UgM3 = Quantity("pm10_ug_m3")
    public static let illuminanceLux = Quantity("illuminance_lux")
    public static let moisturePercent = Quantity("moisture_pct")
    public static let conductivityUsCm = Quantity("conductivity_us_cm")
    public static let dewpointC = Quantity("dewpoint_c")
    public static let accelerationXG = Quantity("acceleration_x_g")
    public static let accelerationYG = Quantity("acceleration_y_g")
    public static let accelerationZG = Quantity("acceleration_z_g")
    public static let movementCount = Quantity("movement_count", integer: true)
    public static let packetCount = Quantity("packet_count", integer: true)
    public static let light = Quantity("light", integer: true)
    public static let txPowerDBm = Quantity("tx_power_dbm", integer: true)

    /// `temperature_probe_N_c` for multi-probe thermometers (N from 1).
    public static func temperatureProbeC(_ n: Int) -> Quantity { Quantity("temperature_probe_\(n)_c") }
}

public struct Measurement: Hashable, Sendable {
    public var quantity: Quantity
    public var value: Double

    public init(_ quantity: Quantity, _ value: Double) {
        self.quantity = quantity
        self.value = value
    }
}

/// What a decoder made of one advertisement: who sent it, which device model, and its measurements.
public struct Reading: Sendable, Equatable {
    public var address: BDAddress
    public var addressType: AddressType
    /// The decoder's stable id (`Registry` ids are stored with readings; never renamed or reused).
    public var decoderID: String
    /// Device model as the decoder knows it ("MM-BLEBC7", "H5075", …).
    public var model: String
    /// Which frame of a multi-frame protocol this came from ("a1-01", "tlm", …); `nil` if only one.
    public var frameKind: String?
    public var measurements: [Measurement]
    /// Receive time, microseconds since the Unix epoch (UTC), copied from the advertisement.
    public var timeMicros: Int64
    public var rssi: Int8?
    /// The device's name: from the payload where the format carries one, else the AD local name.
    /// Radio text: already escaped with `DisplayText.escape`, but still a stranger's words.
    public var name: String?
    /// Problems worth a user's attention that did not stop decoding (e.g. the MAC inside the
    /// payload differs from the advertiser address).
    public var warnings: [String]

    public init(
        address: BDAddress, addressType: AddressType = .publicDevice, decoderID: String, model: String,
        frameKind: String? = nil, measurements: [Measurement], timeMicros: Int64 = 0, rssi: Int8? = nil,
        name: String? = nil, warnings: [String] = []
    ) {
        self.address = address
        self.addressType = addressType
        self.decoderID = decoderID
        self.model = model
        self.frameKind = frameKind
        self.measurements = measurements
        self.timeMicros = timeMicros
        self.rssi = rssi
        self.name = name
        self.warnings = warnings
    }

    /// The value of a quantity, if this reading has it.
    public func value(_ q: Quantity) -> Double? {
        measurements.first { $0.quantity == q }?.value
    }
}
