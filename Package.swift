// swift-tools-version:6.0
// blesensor-log: a passive BLE advertisement sensor logger for Linux.
//
// Data flows one way (see README "Architecture"):
//   source (AdvScanner) → HCI events → advertisements → readings (SensorDecode) → sink (SensorStore / stdout)
// C libraries come from Debian through system-library targets; no SwiftPM package is fetched.
import PackageDescription

let package = Package(
    name: "blesensor-log",
    products: [
        .executable(name: "blesensor-log", targets: ["blesensor-log"])
    ],
    targets: [
        .systemLibrary(name: "CBlueZHCI", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .target(name: "SensorDecode", dependencies: ["CCrypto"]),
        .target(name: "AdvScanner", dependencies: ["CBlueZHCI", "SensorDecode"]),
        .target(name: "SensorStore", dependencies: ["CSQLite", "SensorDecode"]),
        // The MQTT client: libmosquitto at the C boundary (connect, publish, acknowledgements, will, TLS).
        .target(name: "SensorMQTT", dependencies: ["CMosquitto"]),
        // The HTML report and SVG charts: pure (no I/O, no clock), fed plain series values.
        .target(name: "SensorReport"),
        .executableTarget(
            name: "blesensor-log", dependencies: ["AdvScanner", "SensorDecode", "SensorStore", "SensorReport", "SensorMQTT"]),
        // Test-only executables (Sources/TestTools), never products: scripts/bench's measurements, and
        // SensorStore driven as a real process for the crash/disk-full tests.
        .executableTarget(
            name: "blesensor-bench", dependencies: ["SensorDecode", "AdvScanner", "SensorStore"],
            path: "Sources/TestTools/blesensor-bench"),
        .executableTarget(
            name: "store-torture", dependencies: ["SensorStore", "SensorDecode", "TestSupport"],
            path: "Sources/TestTools/store-torture"),
        // Test-only helpers shared by the test targets (seeded random input).
        .target(name: "TestSupport", dependencies: ["SensorDecode"], path: "Sources/TestSupport"),
        .testTarget(name: "SensorDecodeTests", dependencies: ["SensorDecode", "TestSupport"]),
        .testTarget(name: "SensorStoreTests", dependencies: ["TestSupport", "SensorStore", "SensorDecode", "store-torture"]),
        .testTarget(name: "SensorReportTests", dependencies: ["SensorReport"]),
        .testTarget(name: "AdvScannerTests", dependencies: ["TestSupport", "AdvScanner", "SensorDecode"]),
        // Runs the CLI as a process; also unit-tests its output formatting (`@testable import`).
        .testTarget(
            name: "CLITests", dependencies: ["SensorDecode", "AdvScanner", "TestSupport", "SensorMQTT", "SensorStore", "blesensor-log"]),
    ]
)
