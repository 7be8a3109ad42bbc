import SensorStore

/// `--max-new-sensors N` of `run` and `replay`: the store's cap on sensors created per hour
/// (`StoreConfiguration.maxNewSensorsPerHour`), against a crowd of spoofed addresses.
enum NewSensorsOption {
    static let spec = OptionSpec.value(
        "max-new-sensors", "N",
        help: "Store at most N new sensors an hour (default 256); readings of further unknown addresses are not stored until the hour is over.")

    /// Sets the cap in `config` from the arguments, if given.
    static func apply(_ args: ParsedArguments, to config: inout StoreConfiguration) throws(CLIError) {
        guard let text = args.value("max-new-sensors") else { return }
        guard let n = Int(text), (0...1_000_000).contains(n) else {
            throw .usage("--max-new-sensors wants a whole number from 0 to 1000000, got '\(text)'")
        }
        config.maxNewSensorsPerHour = n
    }
}
