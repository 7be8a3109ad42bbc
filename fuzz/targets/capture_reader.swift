import AdvScanner
import Glibc

/// The capture reader (btsnoop, pcap, pcapng, sniffed) over the input as a file: `CaptureReader`
/// reads paths only, so each input is written to one scratch file of this process first. Every
/// record is read until the end or the first error, which must then stay; HCI packets go on to the
/// extractor as in `replay`.
let scratch: String = {
    let dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    return "\(dir)/blesensor-fuzz-capture-\(getpid())"
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCaptureReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let fd = open(scratch, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(fd >= 0, "cannot create \(scratch)")
    var written = 0
    while written < size {
        let n = write(fd, data + written, size - written)
        precondition(n > 0, "cannot write \(scratch)")
        written += n
    }
    close(fd)
    defer { unlink(scratch) }
    guard let reader = try? CaptureReader(path: scratch) else { return 0 }
    var extractor = AdvertisementExtractor()
    var count = 0
    var failure: SourceError? = nil
    while true {
        do throws(SourceError) {
            guard let record = try reader.nextRecord() else { break }
            if case .packet(let p, _) = record {
                extractor.forEachAdvertisement(in: p) { _, bytes in count &+= bytes.count }
            }
        } catch {
            failure = error
            break
        }
    }
    // Invariant (3) of CaptureReader: an error is sticky.
    if let failure {
        do throws(SourceError) {
            _ = try reader.nextRecord()
            fatalError("the reader went on after \(failure)")
        } catch {
            if error != failure { fatalError("a second error \(error) after \(failure)") }
        }
    }
    return count < 0 ? 1 : 0
}
