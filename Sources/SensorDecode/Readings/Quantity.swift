/// A measured quantity, named once for every layer: Swift code, JSON, SQL columns and CSV headers
/// all use `key`, which is snake_case with the unit last (`temperature_c`, `humidity_pct`).
///
/// The vocabulary is fixed here; a decoder that needs a new quantity adds it below, in the same
/// style. Keys are stored in databases, so an existing key is never renamed.
public struct Quantity: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let key: String
    /// Whole-number quantities (battery %, counts) print without a fraction.
    public let isInteger: Bool

    /// A quantity is its key and kind: `Quantity("temperature_c")` read from a database is
    /// `.temperatureC`.
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

    /// `temperature_probe_N_c` for multi-probe thermometers (N from 1). The keys of probes 1–8
    /// are made once: a key this long is a heap string, and grill thermometers send a probe
    /// frame every second.
    public static func temperatureProbeC(_ n: Int) -> Quantity {
        probeTemperatures.indices.contains(n - 1) ? probeTemperatures[n - 1] : Quantity("temperature_probe_\(n)_c")
    }
    private static let probeTemperatures = (1...8).map { Quantity("temperature_probe_\($0)_c") }
}

/// The rest of the vocabulary, mostly from BTHome's object list (also MiBeacon, Qingping,
/// Eddystone). Binary states are integers 0/1 named after what 1 means (`door` 1 = open,
/// `battery_low` 1 = low), as BTHome's spec defines them.
extension Quantity {
    public static let massKg = Quantity("mass_kg")
    public static let massLb = Quantity("mass_lb")
    public static let count = Quantity("count", integer: true)
    public static let energyKWh = Quantity("energy_kwh")
    public static let powerW = Quantity("power_w")
    public static let currentA = Quantity("current_a")
    public static let rotationDeg = Quantity("rotation_deg")
    public static let distanceMm = Quantity("distance_mm")
    public static let distanceM = Quantity("distance_m")
    public static let durationS = Quantity("duration_s")
    public static let speedMS = Quantity("speed_m_s")
    public static let uvIndex = Quantity("uv_index")
    public static let volumeL = Quantity("volume_l")
    public static let volumeMl = Quantity("volume_ml")
    public static let volumeStorageL = Quantity("volume_storage_l")
    public static let volumeFlowM3H = Quantity("volume_flow_m3_h")
    public static let gasM3 = Quantity("gas_m3")
    public static let waterL = Quantity("water_l")
    /// A time stamp the device sent (seconds since the Unix epoch), not our receive time.
    public static let deviceTimeS = Quantity("device_time_s", integer: true)
    public static let accelerationMS2 = Quantity("acceleration_m_s2")
    public static let gyroscopeDegS = Quantity("gyroscope_deg_s")
    public static let directionDeg = Quantity("direction_deg")
    public static let precipitationMm = Quantity("precipitation_mm")
    public static let channel = Quantity("channel", integer: true)
    public static let rotationalSpeedRpm = Quantity("rotational_speed_rpm")
    public static let lightLevel = Quantity("light_level", integer: true)
    public static let formaldehydeMgM3 = Quantity("formaldehyde_mg_m3")
    /// Time since power-on as the device counts it (Eddystone TLM).
    public static let uptimeS = Quantity("uptime_s")
    /// BTHome button event code: 0 none, 1 press, 2 double, 3 triple, 4 long, 5 long double,
    /// 6 long triple, 0x80 hold, 0xFE (BTHome-ble) hold press.
    public static let buttonEvent = Quantity("button_event", integer: true)
    /// BTHome dimmer: steps turned, negative to the left.
    public static let dimmerSteps = Quantity("dimmer_steps", integer: true)

    // Binary sensors, 0/1.
    public static let genericBoolean = Quantity("generic_boolean", integer: true)
    public static let powerOn = Quantity("power_on", integer: true)
    public static let opening = Quantity("opening", integer: true)
    public static let batteryLow = Quantity("battery_low", integer: true)
    public static let batteryCharging = Quantity("battery_charging", integer: true)
    public static let carbonMonoxide = Quantity("carbon_monoxide", integer: true)
    public static let cold = Quantity("cold", integer: true)
    public static let connectivity = Quantity("connectivity", integer: true)
    public static let door = Quantity("door", integer: true)
    public static let garageDoor = Quantity("garage_door", integer: true)
    public static let gasDetected = Quantity("gas_detected", integer: true)
    public static let heat = Quantity("heat", integer: true)
    public static let lock = Quantity("lock", integer: true)
    public static let moistureDetected = Quantity("moisture_detected", integer: true)
    public static let motion = Quantity("motion", integer: true)
    public static let moving = Quantity("moving", integer: true)
    public static let occupancy = Quantity("occupancy", integer: true)
    public static let plug = Quantity("plug", integer: true)
    public static let presence = Quantity("presence", integer: true)
    public static let problem = Quantity("problem", integer: true)
    public static let running = Quantity("running", integer: true)
    public static let safety = Quantity("safety", integer: true)
    public static let smoke = Quantity("smoke", integer: true)
    public static let sound = Quantity("sound", integer: true)
    public static let tamper = Quantity("tamper", integer: true)
    public static let vibration = Quantity("vibration", integer: true)
    public static let window = Quantity("window", integer: true)

    /// The quantity of the `n`-th instance of this one in a frame (n from 1): the first keeps the
    /// plain key, later ones put `n` before the unit, as the peer vectors name them
    /// (`temperature_c`, `temperature2_c`, `humidity3_pct`; unitless `door2`). A name ending in a
    /// digit gets an underscore first (`pm2_5_2_ug_m3`) so the number stays readable.
    /// - Parameter unitSuffix: the unit part of the key without its underscore (`"c"`, `"ug_m3"`),
    ///   or `""` for unitless keys.
    public func instance(_ n: Int, unitSuffix: String) -> Quantity {
        guard n > 1 else { return self }
        // Every key is ASCII: its base is cut and looked at as UTF-8 bytes.
        let unit = unitSuffix.isEmpty ? "" : "_" + unitSuffix
        let hasUnit = !unit.isEmpty && key.hasSuffix(unit)
        let base = hasUnit ? key.utf8.dropLast(unit.utf8.count) : key.utf8[...]
        let endsInDigit = base.last.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false
        return Quantity("\(Substring(base))\(endsInDigit ? "_" : "")\(n)\(hasUnit ? unit : "")", integer: isInteger)
    }
}

// MARK: Air quality
extension Quantity {
    /// Sensirion's VOC index (1–500, 100 = the sensor's running average), as Ruuvi Air sends it.
    public static let vocIndex = Quantity("voc_index", integer: true)
    /// Sensirion's NOx index (1–500, 1 = the sensor's running average).
    public static let noxIndex = Quantity("nox_index", integer: true)
    /// Particulate matter up to 1.0 µm and up to 4.0 µm, µg/m³ (the Sensirion SEN6x sizes the
    /// Ruuvi Air sends next to `pm2_5_ug_m3` and `pm10_ug_m3`).
    public static let pm1UgM3 = Quantity("pm1_0_ug_m3")
    public static let pm4UgM3 = Quantity("pm4_0_ug_m3")
    /// Radon activity concentration, Bq/m³.
    public static let radonBqM3 = Quantity("radon_bq_m3")
}

// MARK: Radiation
extension Quantity {
    /// Ambient gamma dose rate, µSv/h (Aranet Radiation).
    public static let radiationDoseRateUSvH = Quantity("radiation_dose_rate_usv_h")
    /// Dose accumulated since the counter was last reset, mSv; how long it has been counting is
    /// `duration_s`.
    public static let radiationDoseMSv = Quantity("radiation_dose_msv")
}

// MARK: Tyres, liquids, tags and cooking probes
/// Numbered repeats follow `temperatureProbeC(n)` / `instance(_:unitSuffix:)`; a multi-probe
/// cooking thermometer numbers its probe's sensors as its vendor does and names the derived ones
/// (`temperature_meat_c`). Accelerometer tags reuse `acceleration_{x,y,z}_g`.
extension Quantity {
    /// Tyre pressure (TPMS sensors), kPa, gauge or absolute as the decoder's header says.
    public static let pressureKPa = Quantity("pressure_kpa")
    /// Specific gravity of a liquid (hydrometers), unitless, 1.000 = water.
    public static let specificGravity = Quantity("specific_gravity")
    /// A magnet sensor's state, 1 = magnetic field detected.
    public static let magnetDetected = Quantity("magnet_detected", integer: true)
    /// Tilt angles of an accelerometer tag, degrees: pitch −90…90, roll −180…180.
    public static let pitchDeg = Quantity("pitch_deg")
    public static let rollDeg = Quantity("roll_deg")
    /// A cooking probe's tip sensor, and the meat's core temperature as the device estimates it.
    public static let temperatureTipC = Quantity("temperature_tip_c")
    public static let temperatureMeatC = Quantity("temperature_meat_c")
}
