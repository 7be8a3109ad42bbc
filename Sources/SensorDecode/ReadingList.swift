/// The readings decoders make of one advertisement, in storage kept from one advertisement to the
/// next.
///
/// A decode that builds its reading as a new value allocates twice (the reading's measurement list
/// and the list of readings) and frees both once the caller is done: ~550 instructions of each
/// ~3,000 per advertisement (callgrind, BENCHMARKS.md). A caller that decodes in a loop keeps one
/// list and hands it to `Registry.decode(_:into:)` again: `removeAll()` keeps the slots, with
/// their measurement and warning buffers, and the next `begin` writes into them. A caller that
/// keeps readings (the store) takes them with `takeEach`, which leaves a new buffer in the slot.
///
/// Invariants:
/// 1. `storage[0..<endIndex]` are this advertisement's readings; `storage[endIndex...]` are spare
///    slots, never shown. A name or frame kind is a view into the buffer the advertisement came in
///    (for `replay`, a 256 KiB capture buffer), so a spare slot must not keep one long:
///    - a slot `truncate` releases (a reading dropped) is cleared at once;
///    - `takeEach` leaves new, empty readings in the slots (`run` and `replay` take every reading);
///    - a caller that only reads its results (`decode`, the bench) keeps, in each slot, the bytes
///      of the last advertisement decoded into it, until the next one: clearing them at every
///      `removeAll` cost ~35 instructions per advertisement (callgrind).
/// 2. `current`, `add` and `checkPayloadAddress` reach only readings begun by the decoder that is
///    running (`decoderStart`, set by the registry): a decoder that adds without beginning traps,
///    rather than adding to another decoder's reading.
/// 3. A reading copied out of the list shares its measurement buffer, so the next `begin` in its
///    slot copies (Swift's copy on write) rather than changing the caller's copy.
public struct ReadingList: RandomAccessCollection, Sendable {
    private var storage: [Reading] = []
    public private(set) var endIndex = 0
    /// Where the running decoder's readings start (invariant 2).
    var decoderStart = 0

    public init() {}

    public var startIndex: Int { 0 }

    public subscript(position: Int) -> Reading {
        precondition(position >= 0 && position < endIndex, "reading index out of range")
        return storage[position]
    }

    /// Starts a reading of `advertisement`, with its address, time and RSSI, its local name unless
    /// `name` is given, and no measurements or warnings: `add` appends to it, and `current` changes
    /// it further.
    public mutating func begin(
        _ advertisement: Advertisement, _ ad: AdvertisingData, decoderID: String, model: String,
        frameKind: String? = nil, name: DeferredText? = nil
    ) {
        let slot = claimSlot()
        update(slot) { r in
            r.address = advertisement.address
            r.addressType = advertisement.addressType
            r.decoderID = decoderID
            r.model = model
            r.frameKindText = frameKind.map(DeferredText.init)
            r.timeMicros = advertisement.timeMicros
            r.rssi = advertisement.rssi
            r.nameText = name ?? ad.localName.map(DeferredText.radio)
            // Emptied in place, keeping capacity, as the measurements below.
            while !r.warnings.isEmpty { r.warnings.removeLast() }
            // One by one: `removeAll(keepingCapacity:)` goes through the general `replaceSubrange`
            // (~190 instructions a reading, callgrind); a frame has a handful of measurements.
            while !r.measurements.isEmpty { r.measurements.removeLast() }
        }
    }

    /// Appends a measurement to the reading begun last.
    @inline(__always) public mutating func add(_ quantity: Quantity, _ value: Double) {
        current.measurements.append(Measurement(quantity, value))
    }

    /// Warns, on the reading begun last, that the device address its payload carries is not the
    /// advertiser's (firmware that lets the user broadcast a random address does this).
    public mutating func checkPayloadAddress(_ payloadAddress: BDAddress) {
        let advertiser = current.address
        if payloadAddress != advertiser {
            current.warnings.append(.payloadAddress(payloadAddress, advertiser: advertiser))
        }
    }

    /// The reading begun last, changed in place.
    public var current: Reading {
        // Read in place: `readings.current.measurements.isEmpty` copies no reading.
        _read {
            precondition(endIndex > decoderStart, "no reading begun by this decoder")
            yield storage[endIndex - 1]
        }
        _modify {
            precondition(endIndex > decoderStart, "no reading begun by this decoder")
            yield &storage[endIndex - 1]
        }
    }

    /// Empties the list, keeping its slots for the next advertisement.
    public mutating func removeAll() {
        endIndex = 0  // the slots keep their bytes until reused (invariant 1)
        decoderStart = 0
    }

    /// Drops the readings from `index` on (a decoder that appended, then found the frame bad).
    public mutating func truncate(to index: Int) {
        precondition(index >= decoderStart && index <= endIndex, "truncation outside this decoder's readings")
        release(from: index)
    }

    /// Hands each reading to `body`, in order, moved out of its slot, and empties the list: for a
    /// caller that keeps them. The slot gets a new measurement buffer, which the store's copy
    /// would otherwise have cost at the next `begin` (and left it no room to grow).
    public mutating func takeEach(_ body: (consuming Reading) -> Void) {
        for i in 0..<endIndex {
            let reading = update(i) { r in
                var fresh = Reading(address: r.address, decoderID: "", model: "", measurements: .forFrame())
                swap(&fresh, &r)
                return fresh
            }
            body(reading)
        }
        endIndex = 0
        decoderStart = 0
    }

    /// Releases the slots from `index` on, clearing their bytes (invariant 1).
    @inline(__always) private mutating func release(from index: Int) {
        // Usually nothing: most decoders say "not mine" before they begin a reading.
        guard index < endIndex else { return }
        for i in index..<endIndex {
            storage[i].nameText = nil
            storage[i].frameKindText = nil
        }
        endIndex = index
    }

    /// The next slot: a spare one if any, else a new one.
    @inline(__always) private mutating func claimSlot() -> Int {
        if endIndex == storage.count { addSlot() }
        endIndex += 1
        return endIndex - 1
    }

    /// A new slot, for a list that never held this many readings (rare after the first few).
    @inline(never) private mutating func addSlot() {
        storage.append(Reading(address: BDAddress(rawValue: 0), decoderID: "", model: "", measurements: .forFrame()))
    }

    private mutating func update<T>(_ slot: Int, _ body: (inout Reading) -> T) -> T {
        body(&storage[slot])
    }
}

extension ReadingList: Equatable {
    public static func == (a: ReadingList, b: ReadingList) -> Bool { a.elementsEqual(b) }
}
