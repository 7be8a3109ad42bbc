/// A measured quantity, named once for every layer: Swift code, JSON, SQL columns and CSV headers
/// all use `key`, which is snake_case with the unit last (`temperature_c`, `humidity_pct`).
///
/// The vocabulary is fixed here; a decoder that needs a new quantity adds it below, in the same
/// style. Keys are stored in databases, so an existing key is never renamed.
public struct Quantity: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let key: String
    /// Whole-number quantities (battery %, counts) print without a fraction.
    public let isInteger: Bool
    /// Where this quantity sits in `vocabulary` if it is one declared here, else 0. A reading
    /// being written keeps a declared quantity as this number: storing the `Quantity` itself
    /// released the `String` of the entry it overwrote, ~35 instructions per advertisement
    /// (callgrind). Not part of identity: `Quantity("temperature_c")` read from a database is
    /// `.temperatureC`.
    @usableFromInline let code: UInt16

    public init(_ key: String, integer: Bool = false) {
        self.init(key, integer: integer, code: 0)
    }

    @usableFromInline init(_ key: String, integer: Bool = false, code: UInt16) {
        self.key = key
        self.isInteger = integer
        self.code = code
    }

    public var description: String { key }
    public static func < (a: Quantity, b: Quantity) -> Bool { a.key < b.key }
    @inlinable public static func == (a: Quantity, b: Quantity) -> Bool {
        // Two declared quantities are equal exactly when their codes are (`vocabulary` holds each
        // at its code, one key per code: QuantityTests), without a string comparison: the store
        // compares every reading's quantities with its sensor's last ones.
        if a.code != 0, b.code != 0 { return a.code == b.code }
        return a.key == b.key && a.isInteger == b.isInteger
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(isInteger)
    }

    public static let temperatureC = Quantity("temperature_c", code: 1)
    public static let humidityPercent = Quantity("humidity_pct", code: 2)
    public static let batteryPercent = Quantity("battery_pct", integer: true, code: 3)
    public static let voltageV = Quantity("voltage_v", code: 4)
    public static let pressureHPa = Quantity("pressure_hpa", code: 5)
    public static let co2PPM = Quantity("co2_ppm", code: 6)
    public static let tvocUgM3 = Quantity("tvoc_ug_m3", code: 7)
    public static let pm25UgM3 = Quantity("pm2_5_ug_m3", code: 8)
    public static let pm10UgM3 = Quantity("pm10_ug_m3", code: 9)
    public static let illuminanceLux = Quantity("illuminance_lux", code: 10)
    public static let moisturePercent = Quantity("moisture_pct", code: 11)
    public static let conductivityUsCm = Quantity("conductivity_us_cm", code: 12)
    public static let dewpointC = Quantity("dewpoint_c", code: 13)
    public static let accelerationXG = Quantity("acceleration_x_g", code: 14)
    public static let accelerationYG = Quantity("acceleration_y_g", code: 15)
    public static let accelerationZG = Quantity("acceleration_z_g", code: 16)
    public static let movementCount = Quantity("movement_count", integer: true, code: 17)
    public static let packetCount = Quantity("packet_count", integer: true, code: 18)
    public static let light = Quantity("light", integer: true, code: 19)
    public static let txPowerDBm = Quantity("tx_power_dbm", integer: true, code: 20)

    /// `temperature_probe_N_c` for multi-probe thermometers (N from 1).
    public static func temperatureProbeC(_ n: Int) -> Quantity {
        // Probes 1…8 as literals: meat thermometers name every probe of every frame, and building
        // the key each time was a string interpolation per measurement; a table of them made once
        // still cost a lazy-global check and a lookup, ~380 instructions (callgrind).
        switch n {
        case 1: Quantity("temperature_probe_1_c", code: 78)
        case 2: Quantity("temperature_probe_2_c", code: 79)
        case 3: Quantity("temperature_probe_3_c", code: 80)
        case 4: Quantity("temperature_probe_4_c", code: 81)
        case 5: Quantity("temperature_probe_5_c", code: 82)
        case 6: Quantity("temperature_probe_6_c", code: 83)
        case 7: Quantity("temperature_probe_7_c", code: 84)
        case 8: Quantity("temperature_probe_8_c", code: 85)
        default: Quantity("temperature_probe_\(n)_c")
        }
    }
}

/// The rest of the vocabulary, mostly from BTHome's object list (also MiBeacon, Qingping,
/// Eddystone). Binary states are integers 0/1 named after what 1 means (`door` 1 = open,
/// `battery_low` 1 = low), as BTHome's spec defines them.
extension Quantity {
    public static let massKg = Quantity("mass_kg", code: 21)
    public static let massLb = Quantity("mass_lb", code: 22)
    public static let count = Quantity("count", integer: true, code: 23)
    public static let energyKWh = Quantity("energy_kwh", code: 24)
    public static let powerW = Quantity("power_w", code: 25)
    public static let currentA = Quantity("current_a", code: 26)
    public static let rotationDeg = Quantity("rotation_deg", code: 27)
    public static let distanceMm = Quantity("distance_mm", code: 28)
    public static let distanceM = Quantity("distance_m", code: 29)
    public static let durationS = Quantity("duration_s", code: 30)
    public static let speedMS = Quantity("speed_m_s", code: 31)
    public static let uvIndex = Quantity("uv_index", code: 32)
    public static let volumeL = Quantity("volume_l", code: 33)
    public static let volumeMl = Quantity("volume_ml", code: 34)
    public static let volumeStorageL = Quantity("volume_storage_l", code: 35)
    public static let volumeFlowM3H = Quantity("volume_flow_m3_h", code: 36)
    public static let gasM3 = Quantity("gas_m3", code: 37)
    public static let waterL = Quantity("water_l", code: 38)
    /// A time stamp the device sent (seconds since the Unix epoch), not our receive time.
    public static let deviceTimeS = Quantity("device_time_s", integer: true, code: 39)
    public static let accelerationMS2 = Quantity("acceleration_m_s2", code: 40)
    public static let gyroscopeDegS = Quantity("gyroscope_deg_s", code: 41)
    public static let directionDeg = Quantity("direction_deg", code: 42)
    public static let precipitationMm = Quantity("precipitation_mm", code: 43)
    public static let channel = Quantity("channel", integer: true, code: 44)
    public static let rotationalSpeedRpm = Quantity("rotational_speed_rpm", code: 45)
    public static let lightLevel = Quantity("light_level", integer: true, code: 46)
    public static let formaldehydeMgM3 = Quantity("formaldehyde_mg_m3", code: 47)
    /// Time since power-on as the device counts it (Eddystone TLM).
    public static let uptimeS = Quantity("uptime_s", code: 48)
    /// BTHome button event code: 0 none, 1 press, 2 double, 3 triple, 4 long, 5 long double,
    /// 6 long triple, 0x80 hold, 0xFE (BTHome-ble) hold press.
    public static let buttonEvent = Quantity("button_event", integer: true, code: 49)
    /// BTHome dimmer: steps turned, negative to the left.
    public static let dimmerSteps = Quantity("dimmer_steps", integer: true, code: 50)

    // Binary sensors, 0/1.
    public static let genericBoolean = Quantity("generic_boolean", integer: true, code: 51)
    public static let powerOn = Quantity("power_on", integer: true, code: 52)
    public static let opening = Quantity("opening", integer: true, code: 53)
    public static let batteryLow = Quantity("battery_low", integer: true, code: 54)
    public static let batteryCharging = Quantity("battery_charging", integer: true, code: 55)
    public static let carbonMonoxide = Quantity("carbon_monoxide", integer: true, code: 56)
    public static let cold = Quantity("cold", integer: true, code: 57)
    public static let connectivity = Quantity("connectivity", integer: true, code: 58)
    public static let door = Quantity("door", integer: true, code: 59)
    public static let garageDoor = Quantity("garage_door", integer: true, code: 60)
    public static let gasDetected = Quantity("gas_detected", integer: true, code: 61)
    public static let heat = Quantity("heat", integer: true, code: 62)
    public static let lock = Quantity("lock", integer: true, code: 63)
    public static let moistureDetected = Quantity("moisture_detected", integer: true, code: 64)
    public static let motion = Quantity("motion", integer: true, code: 65)
    public static let moving = Quantity("moving", integer: true, code: 66)
    public static let occupancy = Quantity("occupancy", integer: true, code: 67)
    public static let plug = Quantity("plug", integer: true, code: 68)
    public static let presence = Quantity("presence", integer: true, code: 69)
    public static let problem = Quantity("problem", integer: true, code: 70)
    public static let running = Quantity("running", integer: true, code: 71)
    public static let safety = Quantity("safety", integer: true, code: 72)
    public static let smoke = Quantity("smoke", integer: true, code: 73)
    public static let sound = Quantity("sound", integer: true, code: 74)
    public static let tamper = Quantity("tamper", integer: true, code: 75)
    public static let vibration = Quantity("vibration", integer: true, code: 76)
    public static let window = Quantity("window", integer: true, code: 77)

    /// The quantity of the `n`-th instance of this one in a frame (n from 1): the first keeps the
    /// plain key, later ones put `n` before the unit, as the peer vectors name them
    /// (`temperature_c`, `temperature2_c`, `humidity3_pct`; unitless `door2`). A name ending in a
    /// digit gets an underscore first (`pm2_5_2_ug_m3`) so the number stays readable.
    /// - Parameter unitSuffix: the unit part of the key without its underscore (`"c"`, `"ug_m3"`),
    ///   or `""` for unitless keys.
    public func instance(_ n: Int, unitSuffix: String) -> Quantity {
        guard n > 1 else { return self }
        // The base cut and looked at as UTF-8 bytes, as every key is ASCII, and the key made by
        // one interpolation: `dropLast` and `last?.isNumber` on Characters and a chain of `+`
        // cost ~1,900 instructions a key, this ~1,250 (callgrind).
        let unit = unitSuffix.isEmpty ? "" : "_" + unitSuffix
        let hasUnit = !unit.isEmpty && key.hasSuffix(unit)
        let base = hasUnit ? key.utf8.dropLast(unit.utf8.count) : key.utf8[...]
        let endsInDigit = base.last.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false
        return Quantity("\(Substring(base))\(endsInDigit ? "_" : "")\(n)\(hasUnit ? unit : "")", integer: isInteger)
    }
}

extension Quantity {
    /// Every quantity declared above, at the index of its `code` (index 0, "no code", holds a
    /// placeholder never read): how a measurement stored as its code becomes a `Quantity` again.
    /// A test checks that each entry sits at its code and that the keys are distinct.
    static let vocabulary: [Quantity] = [
        Quantity(""),
        .temperatureC,
        .humidityPercent,
        .batteryPercent,
        .voltageV,
        .pressureHPa,
        .co2PPM,
        .tvocUgM3,
        .pm25UgM3,
        .pm10UgM3,
        .illuminanceLux,
        .moisturePercent,
        .conductivityUsCm,
        .dewpointC,
        .accelerationXG,
        .accelerationYG,
        .accelerationZG,
        .movementCount,
        .packetCount,
        .light,
        .txPowerDBm,
        .massKg,
        .massLb,
        .count,
        .energyKWh,
        .powerW,
        .currentA,
        .rotationDeg,
        .distanceMm,
        .distanceM,
        .durationS,
        .speedMS,
        .uvIndex,
        .volumeL,
        .volumeMl,
        .volumeStorageL,
        .volumeFlowM3H,
        .gasM3,
        .waterL,
        .deviceTimeS,
        .accelerationMS2,
        .gyroscopeDegS,
        .directionDeg,
        .precipitationMm,
        .channel,
        .rotationalSpeedRpm,
        .lightLevel,
        .formaldehydeMgM3,
        .uptimeS,
        .buttonEvent,
        .dimmerSteps,
        .genericBoolean,
        .powerOn,
        .opening,
        .batteryLow,
        .batteryCharging,
        .carbonMonoxide,
        .cold,
        .connectivity,
        .door,
        .garageDoor,
        .gasDetected,
        .heat,
        .lock,
        .moistureDetected,
        .motion,
        .moving,
        .occupancy,
        .plug,
        .presence,
        .problem,
        .running,
        .safety,
        .smoke,
        .sound,
        .tamper,
        .vibration,
        .window,
        temperatureProbeC(1),
        temperatureProbeC(2),
        temperatureProbeC(3),
        temperatureProbeC(4),
        temperatureProbeC(5),
        temperatureProbeC(6),
        temperatureProbeC(7),
        temperatureProbeC(8),
    ]
}
