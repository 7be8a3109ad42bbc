import Foundation

/// Runs `tool` (a path) with `args`, its output discarded, and waits for it: its exit status, or
/// -1 when it could not be started (a missing tool is a skipped precondition, not a crash).
@discardableResult
public func system(_ tool: String, _ args: [String]) -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = args
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return -1 }
    p.waitUntilExit()
    return p.terminationStatus
}

/// `system` for a program found on `PATH` (`sh(["mount", "--bind", a, b])`).
@discardableResult
public func sh(_ args: [String]) -> Int32 { system("/usr/bin/env", args) }
