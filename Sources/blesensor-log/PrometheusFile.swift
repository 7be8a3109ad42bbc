import SensorStore

/// `run --prometheus-file PATH`: node_exporter's textfile collector reads PATH, which holds what
/// `export --prometheus` prints, rewritten atomically (`AtomicFile`: the collector never reads
/// half a page) after each commit that stored rows, so it is as fresh as the database and costs
/// one summary query per commit, not per advertisement. A failure (folder gone, disk full) is
/// logged once until a write succeeds again; the logger goes on.
final class PrometheusFile {
    static let option = OptionSpec.value(
        "prometheus-file", "PATH",
        help: "Keep PATH (e.g. /var/lib/node_exporter/textfile/blesensor.prom) equal to 'export --prometheus', rewritten at each commit.")

    let path: String
    let databasePath: String
    let log: EventLog
    private var writtenAtRows: Int? = nil
    private var failing = false

    init(path: String, databasePath: String, log: EventLog) {
        self.path = path
        self.databasePath = databasePath
        self.log = log
    }

    /// Rewrites the file when the store committed rows since the last try (`committedRows`
    /// counts them); a failed write is tried again at the next commit.
    func refresh(committedRows: Int) {
        guard committedRows != writtenAtRows else { return }
        writtenAtRows = committedRows
        do throws(CLIError) {
            let reader = try StoreAccess.openReader(path: databasePath)
            let summaries: [SensorSummary]
            do { summaries = try reader.summary() } catch { throw StoreAccess.cliError(error) }
            try AtomicFile.replace(path, with: Array(PrometheusText.page(summaries).utf8))
            if failing {
                failing = false
                log.info("prometheus: \(path) is written again")
            }
        } catch {
            if !failing {
                failing = true
                log.warning("prometheus: \(error.message); trying again at the next commit")
            }
        }
    }
}
