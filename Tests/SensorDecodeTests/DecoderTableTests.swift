import Foundation
import SensorDecode
import Testing

/// README's "Supported devices" table against what the decoders state: one row per decoder in
/// `Registry.standard`, its id, and its models as the decoder file's `/// Models:` line gives them
/// (`scripts/decoder-table` prints the rows these facts imply). The family, quantities and notes
/// cells are prose, not checked.
@Suite struct DecoderTableTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// What a decoder file states: its id and its `Models:` line, if any.
    struct Stated {
        let file: String
        let models: String?
    }

    /// Decoder id → what its file states, for every file in Decoders/ that declares an id.
    static func statedByFiles() throws -> [String: Stated] {
        let folder = repo.appendingPathComponent("Sources/SensorDecode/Decoders")
        var stated: [String: Stated] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            guard let idLine = lines.first(where: { $0.contains("let id = \"") }) else { continue }
            let id = idLine.split(separator: "\"")[1]
            let models = lines.first { $0.hasPrefix("/// Models: ") }.map { String($0.dropFirst("/// Models: ".count)) }
            stated[String(id)] = Stated(file: name, models: models?.trimmingCharacters(in: .whitespaces))
        }
        return stated
    }

    /// README's rows: (decoder id, models cell), in order.
    static func readmeRows() throws -> [(id: String, models: String)] {
        let text = try String(contentsOf: repo.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## Supported devices").dropFirst().first)
            .components(separatedBy: "\n## ")[0]
        return section.split(separator: "\n").compactMap { line in
            let cells = line.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "|"))
                .components(separatedBy: " | ").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 5, cells[0].hasPrefix("`"), cells[0].hasSuffix("`"), cells[0].count > 2 else { return nil }
            return (id: String(cells[0].dropFirst().dropLast()), models: cells[2])
        }
    }

    @Test func everyRegisteredDecoderHasExactlyOneRow() throws {
        let registered = Registry.standard().decoders.map(\.id)
        let rows = try Self.readmeRows().map(\.id)
        #expect(rows.count == Set(rows).count, "README rows naming a decoder twice: \(rows.filter { id in rows.filter { $0 == id }.count > 1 })")
        #expect(Set(rows).subtracting(registered).isEmpty, "README rows for no registered decoder: \(Set(rows).subtracting(registered).sorted())")
        #expect(
            Set(registered).subtracting(rows).isEmpty,
            "registered decoders without a README row (scripts/decoder-table --missing prints them): \(Set(registered).subtracting(rows).sorted())")
    }

    @Test func everyRegisteredDecoderHasAFileWithItsHeader() throws {
        let stated = try Self.statedByFiles()
        for id in Registry.standard().decoders.map(\.id) {
            #expect(stated[id] != nil, "no file in Sources/SensorDecode/Decoders declares id \"\(id)\"")
        }
    }

    @Test func rowsNameTheModelsTheirDecodersState() throws {
        let stated = try Self.statedByFiles()
        for row in try Self.readmeRows() {
            guard let file = stated[row.id] else { continue }  // reported by the tests above
            guard let models = file.models else {
                Issue.record("\(file.file) has no \"/// Models: …\" line in its header: every decoder states its models")
                continue
            }
            #expect(row.models == models, "README models of \(row.id): \"\(row.models)\", \(file.file) states \"\(models)\"")
        }
    }
}
