extension LiveScanner {
    /// Switches scanning on again at once, when scanning. The kernel makes a GATT remote's LE
    /// connection itself and may stop the controller's scan to do so (it knows nothing of the scan
    /// our raw socket started); without this the silence watchdog would find it only after
    /// `silenceTimeout`. Call from the loop's thread, outside `onAdvertisement`.
    public func resumeScanning(reason: String, now: Double = Clock.monotonic()) {
        guard state == .scanning else { return }
        rearm(reason: reason, reset: false, now: now)
    }
}
