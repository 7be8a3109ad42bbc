import Foundation
import SensorDecode
import SensorStore
import Testing

@testable import blesensor_log

/// Home Assistant discovery configs (MQTTDiscovery.swift), built without a broker.
@Suite struct MQTTDiscoveryTests {
    @Test func numberedInstancesTakeTheirBaseQuantitysClass() {
        #expect(HomeAssistant.entity(for: "temperature2_c")?.deviceClass == "temperature")
        #expect(HomeAssistant.entity(for: "temperature_probe_3_c")?.unit == "°C")
        #expect(HomeAssistant.entity(for: "pm2_5_ug_m3")?.deviceClass == "pm25")
        #expect(HomeAssistant.entity(for: "door2")?.component == "binary_sensor")
        #expect(HomeAssistant.entity(for: "energy_kwh")?.stateClass == "total_increasing")
        #expect(HomeAssistant.entity(for: "button_event") == nil)
        // Not in the table: a plain sensor with the report's unit, in HA's spelling of µ.
        let other = HomeAssistant.entity(for: "formaldehyde_mg_m3")
        #expect(other?.deviceClass == nil && other?.unit == "mg/m³")
        #expect(HomeAssistant.entity(for: "tvoc_ug_m3")?.unit == "\u{03BC}g/m³")
    }

    @Test func aConfigPerQuantityWithTheFieldsHomeAssistantReads() throws {
        // A real stored row: one reading through the store, read back as export reads it.
        let dir = try TempDir()
        defer { dir.cleanup() }
        var config = StoreConfiguration()
        config.downsample.intervalSeconds = 0
        let store = try SensorStore(path: dir.file("a.db"), configuration: config)
        store.add(
            Reading(
                address: BDAddress("A4:C1:38:BC:07:01")!, addressType: .publicDevice, decoderID: "xiaomi_181a",
                model: "LYWSD03MMC",
                measurements: [Measurement(.door, 1), Measurement(.temperatureC, -1.5), Measurement(.buttonEvent, 1)],
                timeMicros: Timestamp.nowMicros(), rssi: -70),
            now: 1)
        try store.close(now: 2)
        let reader = try StoreReader(path: dir.file("a.db"))
        try reader.setAlias("kitchen \"left\"", for: .address(BDAddress("A4:C1:38:BC:07:01")!))
        let row = try #require(try reader.export().next())
        let settings = MQTTSettings(
            broker: try MQTTBrokerURL.parse("mqtt://h"), caFile: nil, password: nil, prefix: "blesensor", receiver: "pi.lan 2",
            discovery: true)
        let configs = HomeAssistant.configs(for: row, stateTopic: "blesensor/pi.lan 2/A4:C1:38:BC:07:01", settings: settings, expireAfter: 180)
        #expect(configs.map { $0.topic } == [
            "homeassistant/binary_sensor/pi_lan_2/a4c138bc0701_door/config",
            "homeassistant/sensor/pi_lan_2/a4c138bc0701_temperature_c/config",
        ])
        #expect(configs.allSatisfy { $0.retain && $0.qos == 1 })
        let door = try #require(JSONSerialization.jsonObject(with: Data(configs[0].payload)) as? [String: Any])
        #expect(door["payload_on"] as? String == "1" && door["payload_off"] as? String == "0" && door["state_class"] == nil)
        let t = try #require(JSONSerialization.jsonObject(with: Data(configs[1].payload)) as? [String: Any])
        #expect(t["value_template"] as? String == "{{ value_json.temperature_c }}")
        #expect(t["unique_id"] as? String == "blesensor_pi_lan_2_a4c138bc0701_temperature_c")
        let device = try #require(t["device"] as? [String: Any])
        #expect(device["name"] as? String == "kitchen \"left\"" && device["manufacturer"] as? String == "Xiaomi")
        #expect(device["connections"] as? [[String]] == [["mac", "a4:c1:38:bc:07:01"]])
        #expect(device["via_device"] as? String == "blesensor_receiver_pi_lan_2")
        let receiver = HomeAssistant.receiverConfig(settings)
        #expect(receiver.topic == "homeassistant/binary_sensor/pi_lan_2/status/config")
        #expect(HomeAssistant.expireAfter(intervalSeconds: 300) == 900 && HomeAssistant.expireAfter(intervalSeconds: 0) == 180)
    }
}
