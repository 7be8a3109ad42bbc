import SensorDecode
import SensorMQTT
import SensorReport
import SensorStore

/// Home Assistant MQTT discovery (https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery):
/// one retained config per sensor quantity on
/// `homeassistant/<component>/<node_id>/<object_id>/config`, where node_id and object_id may only
/// hold `[a-zA-Z0-9_-]`. Ours: node_id = the receiver, object_id = the address's 12 hex digits and
/// the quantity key, so two receivers hearing one sensor announce distinct entities of one device
/// (its identifier is the address). A config names its state topic (our stored rows), a
/// `value_template` picking the quantity, the entity's device (identifiers, `connections`
/// `[["mac", address]]`, manufacturer, model, name, `via_device` = the receiver's device), and
/// `availability` on the receiver's status topic (`online` retained at connect, `offline` as
/// the last will and at a clean stop; HA's defaults for payload_available/not_available).
/// `expire_after` marks an entity unavailable once no row came for three intervals.
/// Configs are sent again when Home Assistant announces `online` on `homeassistant/status`.
enum HomeAssistant {
    static let prefix = "homeassistant"
    static let statusTopic = "homeassistant/status"

    /// How Home Assistant shows one of our quantities.
    struct Entity: Equatable {
        /// `sensor` or `binary_sensor`.
        var component: String
        var deviceClass: String?
        /// Exactly as HA spells the units it accepts for the device class (µ is U+03BC there).
        var unit: String?
        /// `measurement`, or `total_increasing` for meters (HA rejects measurement for energy,
        /// gas, water and volume).
        var stateClass: String?
    }

    private static func sensor(_ deviceClass: String?, _ unit: String?, _ stateClass: String = "measurement") -> Entity {
        Entity(component: "sensor", deviceClass: deviceClass, unit: unit, stateClass: stateClass)
    }
    private static func binary(_ deviceClass: String?) -> Entity {
        Entity(component: "binary_sensor", deviceClass: deviceClass, unit: nil, stateClass: nil)
    }

    /// Our quantity keys → HA's device classes and units: THE table. A numbered instance
    /// (`temperature2_c`, `temperature_probe_3_c`) is looked up without its number
    /// (`entity(for:)`). A key not here is announced as a plain sensor with the unit the report
    /// shows; those listed as `nil` are not announced (button events belong to HA's event entities).
    static let entities: [String: Entity?] = [
        "temperature_c": sensor("temperature", "°C"),
        "temperature_probe_c": sensor("temperature", "°C"),
        "dewpoint_c": sensor("temperature", "°C"),
        "humidity_pct": sensor("humidity", "%"),
        "battery_pct": sensor("battery", "%"),
        "moisture_pct": sensor("moisture", "%"),
        "voltage_v": sensor("voltage", "V"),
        "pressure_hpa": sensor("atmospheric_pressure", "hPa"),
        "co2_ppm": sensor("carbon_dioxide", "ppm"),
        "tvoc_ug_m3": sensor("volatile_organic_compounds", "\u{03BC}g/m³"),
        "pm2_5_ug_m3": sensor("pm25", "\u{03BC}g/m³"),
        "pm10_ug_m3": sensor("pm10", "\u{03BC}g/m³"),
        "illuminance_lux": sensor("illuminance", "lx"),
        "conductivity_us_cm": sensor("conductivity", "\u{03BC}S/cm"),
        "power_w": sensor("power", "W"),
        "current_a": sensor("current", "A"),
        "energy_kwh": sensor("energy", "kWh", "total_increasing"),
        "gas_m3": sensor("gas", "m³", "total_increasing"),
        "water_l": sensor("water", "L", "total_increasing"),
        "volume_l": sensor("volume", "L", "total_increasing"),
        "volume_ml": sensor("volume", "mL", "total_increasing"),
        "volume_storage_l": sensor("volume_storage", "L"),
        "volume_flow_m3_h": sensor("volume_flow_rate", "m³/h"),
        "mass_kg": sensor("weight", "kg"),
        "mass_lb": sensor("weight", "lb"),
        "distance_mm": sensor("distance", "mm"),
        "distance_m": sensor("distance", "m"),
        "duration_s": sensor("duration", "s"),
        "uptime_s": sensor("duration", "s"),
        "speed_m_s": sensor("speed", "m/s"),
        "precipitation_mm": sensor("precipitation", "mm"),
        "tx_power_dbm": sensor("signal_strength", "dBm"),
        "button_event": nil,
        "dimmer_steps": nil,
        "device_time_s": nil,
        // Binary states, 1 = on, as HA's binary sensor classes mean them. `safety` is left without
        // a class: BTHome's 1 means safe, HA's on means unsafe.
        "door": binary("door"), "window": binary("window"), "opening": binary("opening"),
        "garage_door": binary("garage_door"), "motion": binary("motion"), "moving": binary("moving"),
        "occupancy": binary("occupancy"), "presence": binary("presence"), "smoke": binary("smoke"),
        "moisture_detected": binary("moisture"), "gas_detected": binary("gas"),
        "carbon_monoxide": binary("carbon_monoxide"), "battery_low": binary("battery"),
        "battery_charging": binary("battery_charging"), "cold": binary("cold"), "heat": binary("heat"),
        "connectivity": binary("connectivity"), "lock": binary("lock"), "plug": binary("plug"),
        "power_on": binary("power"), "problem": binary("problem"), "running": binary("running"),
        "safety": binary(nil), "sound": binary("sound"), "tamper": binary("tamper"),
        "vibration": binary("vibration"), "light": binary("light"), "generic_boolean": binary(nil),
    ]

    /// How `key` is announced, `nil` when it is not.
    static func entity(for key: String) -> Entity? {
        if let e = entities[key] { return e }
        // Numbered instances: the digits that number them dropped (`temperature2_c`,
        // `temperature_probe_3_c`, `door2`); keys with digits of their own (pm2_5) matched above.
        var base = ""
        for part in key.split(separator: "_") {
            let stripped = part.filter { !$0.isNumber }
            if !stripped.isEmpty { base += (base.isEmpty ? "" : "_") + stripped }
        }
        if base != key, let e = entities[base] { return e }
        let unit = QuantityDisplay(key: key).unit
        return sensor(nil, unit.isEmpty ? nil : haUnit(unit))
    }

    /// A unit as the report writes it, in HA's spelling (HA uses the Greek μ, the report the micro sign).
    private static func haUnit(_ unit: String) -> String {
        String(unit.unicodeScalars.map { $0 == "\u{00B5}" ? "\u{03BC}" : Character($0) })
    }

    /// Makers by decoder id, for the device card.
    static let manufacturers: [String: String] = [
        "minew_ffe1": "Minew", "bthome": "BTHome", "xiaomi_181a": "Xiaomi", "xiaomi_mibeacon": "Xiaomi",
        "qingping": "Qingping", "govee": "Govee", "govee_meat": "Govee", "ruuvi": "Ruuvi",
        "inkbird_ibs_th": "Inkbird", "inkbird_ith": "Inkbird", "inkbird_bbq": "Inkbird", "inkbird_iam_t2": "Inkbird",
        "thermobeacon": "ThermoBeacon", "sensorpush": "SensorPush", "switchbot_meter": "SwitchBot",
    ]

    /// `[a-zA-Z0-9_-]` only, as discovery topics' node_id and object_id must be.
    static func topicID(_ s: String) -> String {
        String(s.unicodeScalars.map { c in
            c.isASCII && (("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "-")
                ? Character(c) : "_"
        })
    }

    /// The address's 12 hex digits, lower case.
    static func addressID(_ a: BDAddress) -> String { "\(a)".lowercased().filter { $0 != ":" } }

    static func receiverDeviceID(_ s: MQTTSettings) -> String { "blesensor_receiver_" + topicID(s.receiver) }

    /// The receiver's own device: a connectivity binary sensor on its status topic, so that the
    /// sensors' `via_device` names a device HA knows.
    static func receiverConfig(_ s: MQTTSettings) -> MQTTMessage {
        let node = topicID(s.receiver)
        var j = "{\"unique_id\":" + JSON.string(receiverDeviceID(s) + "_status")
        j += ",\"name\":\"Status\",\"state_topic\":" + JSON.string(s.statusTopic)
        j += ",\"payload_on\":\"online\",\"payload_off\":\"offline\",\"device_class\":\"connectivity\""
        j += ",\"device\":{\"identifiers\":[" + JSON.string(receiverDeviceID(s)) + "],\"name\":" + JSON.string(s.receiver)
        j += ",\"manufacturer\":\"blesensor-log\",\"model\":\"blesensor-log receiver\"}}"
        return MQTTMessage(topic: "\(prefix)/binary_sensor/\(node)/status/config", text: j, qos: 1, retain: true)
    }

    /// A sensor's `device` object; its identifier (the address) ties the configs of its
    /// quantities and its buttons' triggers to one device. `manufacturer` is left out where it
    /// is not known (an event carries no decoder id).
    static func deviceJSON(
        _ address: BDAddress, model: String, alias: String?, manufacturer: String?, settings s: MQTTSettings
    ) -> String {
        var device = "{\"identifiers\":[" + JSON.string("blesensor_" + addressID(address)) + "]"
        device += ",\"connections\":[[\"mac\"," + JSON.string("\(address)".lowercased()) + "]]"
        if let manufacturer { device += ",\"manufacturer\":" + JSON.string(manufacturer) }
        device += ",\"model\":" + JSON.string(model)
        device += ",\"name\":" + JSON.string(alias ?? "\(model) \(address)")
        return device + ",\"via_device\":" + JSON.string(receiverDeviceID(s)) + "}"
    }

    /// The configs of a stored row's quantities (one per quantity HA is told about).
    static func configs(for row: ExportRow, stateTopic: String, settings s: MQTTSettings, expireAfter: Int)
        -> [MQTTMessage]
    {
        let sensor = row.sensor
        let node = topicID(s.receiver)
        let addr = addressID(sensor.address)
        let device = deviceJSON(
            sensor.address, model: sensor.model, alias: sensor.alias,
            manufacturer: manufacturers[sensor.decoderID] ?? sensor.decoderID, settings: s)
        var out: [MQTTMessage] = []
        for m in row.measurements {
            let key = m.quantity.key
            guard let e = entity(for: key) else { continue }
            let object = addr + "_" + topicID(key)
            var j = "{\"unique_id\":" + JSON.string("blesensor_\(node)_\(object)")
            j += ",\"name\":" + JSON.string(QuantityDisplay(key: key).name)
            j += ",\"state_topic\":" + JSON.string(stateTopic)
            j += ",\"value_template\":" + JSON.string("{{ value_json.\(key) }}")
            if let c = e.deviceClass { j += ",\"device_class\":" + JSON.string(c) }
            if let u = e.unit { j += ",\"unit_of_measurement\":" + JSON.string(u) }
            if let sc = e.stateClass { j += ",\"state_class\":" + JSON.string(sc) }
            if e.component == "binary_sensor" { j += ",\"payload_on\":\"1\",\"payload_off\":\"0\"" }
            j += ",\"expire_after\":\(expireAfter)"
            j += ",\"availability\":[{\"topic\":" + JSON.string(s.statusTopic) + "}]"
            j += ",\"device\":" + device + "}"
            out.append(MQTTMessage(topic: "\(prefix)/\(e.component)/\(node)/\(object)/config", text: j, qos: 1, retain: true))
        }
        return out
    }

    /// Seconds without a row after which HA shows an entity unavailable: three intervals, at
    /// least three minutes (an interval of 0 stores every advertisement).
    static func expireAfter(intervalSeconds: Int) -> Int { max(180, 3 * intervalSeconds) }
}
