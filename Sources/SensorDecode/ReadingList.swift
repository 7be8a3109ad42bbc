/// The readings decoders make of one advertisement, in storage kept from one advertisement to the
/// next.
///
/// WHY. A `Reading` is made only when one is read (`subscript`, `takeEach`). While decoders write,
/// a reading is a `Head` of plain fields (its model, decoder id and frame kind as literals, bytes
/// it keeps as positions in the list's copy of them) and a range of one measurement list that all
/// readings of the advertisement share. Beginning a reading and adding two measurements cost ~800
/// instructions when each reading was a `Reading` in a slot of its own (its strings retained and
/// released, its name and frame kind replaced through their value witnesses, two buffers checked
/// for uniqueness at each `add`), and ~440 this way (callgrind: a decoder that does only that,
/// against one that says "not mine"). Most advertisements a bench or a busy radio decodes are
/// never read as `Reading`s one by one; a caller that keeps readings (the store) takes them with
/// `takeEach`, which makes each `Reading` once, with a measurement array of its own.
///
/// Invariants:
/// 1. `heads[0..<endIndex]` are this advertisement's readings, in order; `heads[endIndex...]` are
///    spare, never shown. `measurements[0..<measurementCount]` are theirs, in order: reading i's
///    run from `heads[i].firstMeasurement` to the next reading's first, the last reading's to
///    `measurementCount` (so `add` writes the reading begun last). Entries past `measurementCount`
///    are spare, overwritten by the next `add`s. `warnings[0..<warningCount]` are the warnings of
///    readings 0..<endIndex, in order, each with its reading's index; spares follow, as above.
///    An entry's quantity is a `Quantity.code`, or `-(i + 1)` with `i < otherCount`.
/// 2. The list keeps nothing of the buffer the advertisement came in (a decoder sees it only as
///    a view for the length of a decode, `ADView`): bytes a reading keeps (the local name, a name
///    or identity the frame carries) are copied into `copied`. `copied[0..<radioNameCount]` is
///    the local name, copied by the first `begin` of an advertisement (whose readings all have
///    it; a head's `hasRadioName` is true only for an advertisement with one); the bytes its
///    readings keep of their frames follow, up to `copiedCount`, at the positions their heads
///    hold (`Head.copies`).
///    `texts[0..<textCount]` belong to readings `0..<endIndex`, in order; spares are empty, as a
///    reading that gets one sets only the field it is given: `truncate` and `removeAll` empty what
///    they drop.
/// 3. `add`, `warn`, `setModel`, `setFrameKind` and `checkPayloadAddress` reach only the reading
///    begun last, and only if the decoder that is running began it (`decoderStart`, set by the
///    registry): a decoder that adds without beginning traps, rather than adding to another
///    decoder's reading.
public struct ReadingList: RandomAccessCollection, Sendable {
    /// What a reading holds but its lists (invariant 1).
    struct Head: Sendable {
        /// The advertisement's address, type, RSSI and time, as its report gave them: stored whole,
        /// a copy of three words, where its fields apart were unpacked and stored one by one.
        var header = AdvertisementHeader()
        var decoderID: StaticString = ""
        var model: StaticString = ""
        /// Whether the advertisement had a local name (`copied[0..<radioNameCount]`, invariant 2).
        var hasRadioName = false
        /// The frame kind as the decoder named it in `begin`.
        var frameKind: StaticString? = nil
        var firstMeasurement = 0
        /// `texts[runTimeTexts - 1]` holds what the decoder gave at run time for this reading;
        /// 0 when it gave nothing (most readings).
        var runTimeTexts: Int32 = 0
        /// Which of the two positions below are this reading's (`Copies`; `begin` clears it):
        /// bytes of its frame it keeps as text in `copied` (invariant 2), a name the frame
        /// carries and an identity as its frame kind. Plain values in the head, where they were
        /// run-time texts, emptied after every advertisement that had one (661.7 -> 649.5
        /// instructions an advertisement on the bench's vectors, one in ten an iBeacon, callgrind).
        var copies: UInt8 = 0
        var nameCopy = CopiedBytes()
        var frameKindCopy = CopiedBytes()
        /// What makes the frame kind's text of `frameKindCopy`; left from an earlier reading when
        /// `copies` does not say `frameKind` (overwritten, never read).
        var frameKindFormat: DeferredText.Format? = nil
    }

    /// Bits of `Head.copies`.
    enum Copies {
        static let name: UInt8 = 1
        static let frameKind: UInt8 = 2
    }

    /// Where bytes a reading keeps lie in `copied`.
    struct CopiedBytes: Sendable {
        var start: Int32 = 0
        var count: Int32 = 0
        init() {}
        init(_ range: Range<Int>) {
            start = Int32(range.lowerBound)
            count = Int32(range.count)
        }
        var range: Range<Int> { Int(start)..<Int(start + count) }
    }

    /// Words a decoder gives a reading at run time, each winning over what `begin` had: a model
    /// name (`setModel`), a frame kind (`setFrameKind`). Kept apart from the heads: a head of
    /// plain values is begun without testing or releasing anything, where optionals of strings
    /// in every head made it 248 bytes and cost ~28 instructions per advertisement to clear and
    /// fill (callgrind).
    struct RunTimeTexts: Sendable {
        var model: String? = nil
        var frameKind: String? = nil
    }

    private var heads: [Head] = []
    /// The run-time texts of readings `0..<endIndex`, in their readings' order (only the reading
    /// begun last gets one); `texts[textCount...]` are spare and empty (invariant 2).
    private var texts: [RunTimeTexts] = []
    private var textCount = 0
    /// A measurement as written: its quantity's `code` if it has one, else `-(i + 1)` for
    /// `otherQuantities[i]`. Plain values, so that overwriting a spare entry releases nothing.
    private struct Entry: Sendable {
        var quantity: Int32
        var value: Double
    }
    private var measurements: [Entry] = []
    private var measurementCount = 0
    /// Quantities without a code (made at run time, e.g. BTHome's second temperature) of this
    /// advertisement's measurements; `otherQuantities[otherCount...]` are spare.
    private var otherQuantities: [Quantity] = []
    private var otherCount = 0
    /// A warning and the reading it is about: a struct, as a tuple's array was emptied through
    /// the runtime's generic tuple witnesses (callgrind).
    private struct Warning: Sendable {
        var reading: Int
        var warning: DecodeWarning
    }
    private var warnings: [Warning] = []
    private var warningCount = 0
    /// The bytes this advertisement's readings keep (invariant 2): its local name as broadcast,
    /// then what decoders copied from their frames, in storage kept from one advertisement to the
    /// next. A copy of a few bytes, where keeping a view of the advertisement's buffer retained
    /// it at each advertisement and released the one before, two atomic operations (~4 % of the
    /// decode's time each on the bench, by an experiment with non-atomic reference counting) and
    /// ~44 instructions; a view also kept a capture buffer alive after its last advertisement.
    private var copied: [UInt8] = []
    /// `copied[0..<radioNameCount]` is the local name.
    private var radioNameCount = 0
    /// `copied[0..<copiedCount]` is in use; the rest is spare.
    private var copiedCount = 0
    public private(set) var endIndex = 0
    /// Where the running decoder's readings start (invariant 3).
    var decoderStart = 0

    public init() {}

    public var startIndex: Int { 0 }

    /// The reading at `position`, made from its head and lists.
    public subscript(position: Int) -> Reading {
        precondition(position >= 0 && position < endIndex, "reading index out of range")
        return reading(position)
    }

    /// Starts a reading of the advertisement `ad`, with its address, time and RSSI, its local name
    /// unless `name` is given, and no measurements or warnings: `add` appends to it. Inlined into
    /// the decoders' call sites, its literals stored as constants, with the name's copy (once an
    /// advertisement) out of line: 727.8 -> 705.4 instructions an advertisement against a call
    /// (callgrind); inlined whole, name copy and all, it had cost more (1,545 -> 1,559).
    @inline(__always) public mutating func begin(
        _ ad: ADView, decoderID: StaticString, model: StaticString, frameKind: StaticString? = nil
    ) {
        let slot = claimSlot()
        let first = measurementCount
        let header = ad.header
        heads.withUnsafeMutableBufferPointer { h in
            h[slot].header = header
            h[slot].decoderID = decoderID
            h[slot].model = model
            h[slot].firstMeasurement = first
            h[slot].frameKind = frameKind
            h[slot].hasRadioName = ad.index.localNameEntry != nil
            h[slot].runTimeTexts = 0
            h[slot].copies = 0
        }
        // Once per advertisement, and only if it has a name: all its readings have that name.
        // The first reading: nothing else of this advertisement is copied yet (invariant 2).
        if slot == 0 { startCopies(ad) }
    }

    /// Starts the bytes this advertisement's readings keep with its local name (invariant 2).
    /// Out of line: inlined too, at each `begin`, it cost ~3 instructions an advertisement more.
    @inline(never) private mutating func startCopies(_ ad: ADView) {
        copiedCount = 0
        radioNameCount = 0
        // Unchecked: the index's entries lie inside its bytes (`ADIndex` invariant 1).
        if let name = ad.localNameRange { radioNameCount = copy(ad.bytes.extracting(unchecked: name)).count }
    }

    /// Copies bytes a reading keeps into `copied`, after those already there, in place: emptying
    /// and appending went through the generic paths of `replaceSubrange` and
    /// `append(contentsOf:)`, ~60 instructions (callgrind). Returns where they are. Inlined into
    /// `startCopies` and where a frame's bytes are kept: as a call, with its own frame, it cost
    /// ~16 instructions an advertisement more (callgrind).
    @inline(__always) private mutating func copy(_ bytes: Span<UInt8>) -> Range<Int> {
        let start = copiedCount
        // Grown for more than ever before (rare: a legacy advertisement has at most 31 bytes).
        if copied.count - start < bytes.count { grow(toHold: start + bytes.count) }
        copiedCount = start + bytes.count
        if bytes.count > 0 {
            copied.withUnsafeMutableBufferPointer { out in
                bytes.withUnsafeBufferPointer { source in
                    (out.baseAddress! + start).update(from: source.baseAddress!, count: source.count)
                }
            }
        }
        return start..<copiedCount
    }

    /// Room for `count` bytes in all (at least 64, so that a few names grow it once).
    @inline(never) private mutating func grow(toHold count: Int) {
        copied.append(contentsOf: repeatElement(0, count: Swift.max(count, 64) - copied.count))
    }

    /// The same, with the name the frame carries (`nil`: the local name, as above): bytes as
    /// broadcast, copied, escaped when read.
    public mutating func begin(
        _ ad: ADView, decoderID: StaticString, model: StaticString, frameKind: StaticString? = nil,
        name: Span<UInt8>?
    ) {
        begin(ad, decoderID: decoderID, model: model, frameKind: frameKind)
        guard let name else { return }
        let kept = CopiedBytes(copy(name))
        let i = checkedCurrent()
        heads.withUnsafeMutableBufferPointer { h in
            h[i].nameCopy = kept
            h[i].copies |= Copies.name
        }
    }

    /// Appends a measurement to the reading begun last.
    @inline(__always) public mutating func add(_ quantity: Quantity, _ value: Double) {
        _ = checkedCurrent()
        let e = Entry(quantity: quantity.code != 0 ? Int32(quantity.code) : keep(quantity), value: value)
        Self.put(e, in: &measurements, count: &measurementCount)
    }

    /// Appends a measurement of a declared quantity, given by its `Quantity.code` (≠ 0), to the
    /// reading begun last: for a decoder that keeps quantities in a table, where reading the
    /// `Quantity` out of it copied its key (a retain and a release per measurement).
    @inline(__always) mutating func add(code: UInt16, _ value: Double) {
        _ = checkedCurrent()
        Self.put(Entry(quantity: Int32(code), value: value), in: &measurements, count: &measurementCount)
    }

    /// Stores `value` as element `count` of `list` and counts it: over a spare element if there is
    /// one, so that emptying a list (its count set to 0) costs nothing per element (invariant 1).
    @inline(__always) private static func put<T>(_ value: T, in list: inout [T], count: inout Int) {
        if count < list.count { list[count] = value } else { list.append(value) }
        count &+= 1  // below the array's count, an `Int`
    }

    /// Keeps a quantity that has no code, and returns the number an entry holds for it.
    @inline(never) private mutating func keep(_ quantity: Quantity) -> Int32 {
        Self.put(quantity, in: &otherQuantities, count: &otherCount)
        return -Int32(otherCount)
    }

    /// The number of measurements of the reading begun last.
    public var currentMeasurementCount: Int {
        measurementCount - heads[checkedCurrent()].firstMeasurement
    }

    /// Adds a warning to the reading begun last.
    public mutating func warn(_ warning: DecodeWarning) {
        Self.put(Warning(reading: checkedCurrent(), warning: warning), in: &warnings, count: &warningCount)
    }

    /// Sets the frame kind of the reading begun last, made at run time.
    public mutating func setFrameKind(_ text: String) {
        texts[textIndex(ofCurrent: checkedCurrent())].frameKind = text
    }

    /// Sets the frame kind of the reading begun last to an identity the frame carries: `bytes`,
    /// copied, which `format` (a pure function of them) makes into text when the reading is read.
    /// Inlined (iBeacon's one call site): ~4 instructions an advertisement fewer (callgrind).
    @inline(__always) public mutating func setFrameKind(
        copying bytes: Span<UInt8>, format: @escaping DeferredText.Format
    ) {
        let kept = CopiedBytes(copy(bytes))
        let i = checkedCurrent()
        // The last frame kind given wins (rare: no decoder gives two).
        if heads[i].runTimeTexts > 0 { texts[Int(heads[i].runTimeTexts) - 1].frameKind = nil }
        heads.withUnsafeMutableBufferPointer { h in
            h[i].frameKindCopy = kept
            h[i].frameKindFormat = format
            h[i].copies |= Copies.frameKind
        }
    }

    /// Names the model of the reading begun last, where the name is made at run time (an
    /// unknown type number, a name the device broadcasts).
    public mutating func setModel(_ text: String) {
        texts[textIndex(ofCurrent: checkedCurrent())].model = text
    }

    /// Where in `texts` the run-time texts of reading `i`, the reading begun last, are: made
    /// if it has none, after those of the readings before it (invariant 2).
    @inline(__always) private mutating func textIndex(ofCurrent i: Int) -> Int {
        if heads[i].runTimeTexts == 0 {
            if textCount == texts.count { texts.append(RunTimeTexts()) }
            textCount += 1
            heads[i].runTimeTexts = Int32(textCount)
        }
        return Int(heads[i].runTimeTexts) - 1
    }

    /// Warns, on the reading begun last, that the device address its payload carries is not the
    /// advertiser's (firmware that lets the user broadcast a random address does this).
    public mutating func checkPayloadAddress(_ payloadAddress: BDAddress) {
        let advertiser = heads[checkedCurrent()].header.address
        if payloadAddress != advertiser { warn(.payloadAddress(payloadAddress, advertiser: advertiser)) }
    }

    /// Empties the list, keeping its storage for the next advertisement.
    /// Inlined: it runs for every advertisement, and a call cost more than its stores.
    @inline(__always) public mutating func removeAll() {
        endIndex = 0
        if textCount > 0 { emptyTexts(from: 0) }  // spares are empty (invariant 2)
        decoderStart = 0
        measurementCount = 0  // the entries stay, as spares (invariant 1)
        otherCount = 0
        warningCount = 0
    }

    /// Drops the readings from `index` on (a decoder that appended, then found the frame bad).
    @inline(__always) public mutating func truncate(to index: Int) {
        precondition(index >= decoderStart && index <= endIndex, "truncation outside this decoder's readings")
        // Usually nothing: most decoders say "not mine" before they begin a reading.
        if index < endIndex { drop(from: index) }
    }

    @inline(never) private mutating func drop(from index: Int) {
        measurementCount = heads[index].firstMeasurement
        while warningCount > 0, warnings[warningCount - 1].reading >= index { warningCount -= 1 }
        if let first = heads[index..<endIndex].first(where: { $0.runTimeTexts > 0 }) {
            emptyTexts(from: Int(first.runTimeTexts) - 1)
        }
        endIndex = index
    }

    /// Hands each reading to `body`, in order, and empties the list: for a caller that keeps them.
    public mutating func takeEach(_ body: (consuming Reading) -> Void) {
        // Nearly every advertisement a radio hears decodes to nothing: then there is nothing to do.
        guard endIndex > 0 else { return removeAll() }
        for i in 0..<endIndex { body(reading(i)) }
        removeAll()
    }

    /// Reading `i` as a value of its own: its literals made into text, its measurements and
    /// warnings copied out.
    private func reading(_ i: Int) -> Reading {
        let first = heads[i].firstMeasurement
        let end = i + 1 < endIndex ? heads[i + 1].firstMeasurement : measurementCount
        let header = heads[i].header
        var model = heads[i].model.text
        var frameKind = heads[i].frameKind.map { DeferredText($0.text) }
        var name = heads[i].hasRadioName ? DeferredText.radio(copied[..<radioNameCount]) : nil
        // What a decoder gave at run time wins over the literals and the local name; words over
        // kept bytes, which `setFrameKind(copying:)` makes the last frame kind given win.
        if heads[i].copies != 0 { giveCopies(i, frameKind: &frameKind, name: &name) }
        if heads[i].runTimeTexts > 0 {
            give(texts[Int(heads[i].runTimeTexts) - 1], model: &model, frameKind: &frameKind)
        }
        var ofThis: [DecodeWarning] = []
        if warningCount > 0 { ofThis = warnings[..<warningCount].lazy.filter { $0.reading == i }.map(\.warning) }
        return Reading(
            address: header.address, addressType: header.addressType, decoderID: heads[i].decoderID.text,
            model: model, frameKindText: frameKind, measurements: measurements(first..<end),
            timeMicros: header.timeMicros, rssi: header.rssi, nameText: name, warnings: ofThis)
    }

    /// Puts what a decoder gave at run time in place of what `begin` had. Apart from `reading`:
    /// most readings have none, and an empty `RunTimeTexts` made and destroyed for each cost more.
    @inline(never) private func give(_ given: RunTimeTexts, model: inout String, frameKind: inout DeferredText?) {
        if let text = given.model { model = text }
        if let kind = given.frameKind { frameKind = DeferredText(kind) }
    }

    /// The same for the bytes reading `i` keeps of its frame, as views of `copied` (the reading's
    /// copy of the array shares its storage until the list writes again).
    @inline(never) private func giveCopies(_ i: Int, frameKind: inout DeferredText?, name: inout DeferredText?) {
        let copies = heads[i].copies
        if copies & Copies.name != 0 { name = DeferredText.radio(copied[heads[i].nameCopy.range]) }
        if copies & Copies.frameKind != 0, let format = heads[i].frameKindFormat {
            frameKind = DeferredText(copied[heads[i].frameKindCopy.range], format: format)
        }
    }

    /// Entries `range` as the measurements they stand for. A loop, not `map` with a closure: a
    /// closure that reads this list's fields captured the whole list, a copy through its value
    /// witnesses per reading made (~230 instructions, callgrind).
    private func measurements(_ range: Range<Int>) -> [Measurement] {
        var out: [Measurement] = []
        out.reserveCapacity(range.count)
        for e in measurements[range] {
            out.append(Measurement(e.quantity > 0 ? Quantity.vocabulary[Int(e.quantity)] : otherQuantities[Int(-e.quantity) - 1], e.value))
        }
        return out
    }

    /// Empties `texts[start..<textCount]`, which spares must be (invariant 2). Field
    /// by field: a whole `RunTimeTexts()` stored over each was destroyed through its value
    /// witnesses (~5 instructions per advertisement more, callgrind).
    @inline(never) private mutating func emptyTexts(from start: Int) {
        // Only what was set: a reading is usually given one of the two, and storing over the
        // other consumed it through a call (callgrind).
        for t in start..<textCount {
            if texts[t].frameKind != nil { texts[t].frameKind = nil }
            if texts[t].model != nil { texts[t].model = nil }
        }
        textCount = start
    }

    /// The reading begun last, which the running decoder must have begun (invariant 3).
    @inline(__always) private func checkedCurrent() -> Int {
        precondition(endIndex > decoderStart, "no reading begun by this decoder")
        return endIndex - 1
    }

    /// The next slot: a spare one if any, else a new one.
    @inline(__always) private mutating func claimSlot() -> Int {
        if endIndex == heads.count { addSlot() }
        endIndex &+= 1  // at most `heads.count`
        return endIndex &- 1
    }

    /// A new slot, for a list that never held this many readings (rare after the first few).
    @inline(never) private mutating func addSlot() {
        heads.append(Head())
    }
}

extension ReadingList: Equatable {
    public static func == (a: ReadingList, b: ReadingList) -> Bool { a.elementsEqual(b) }
}

extension StaticString {
    /// The literal as a `String`, its bytes copied: `description` cost ~300 instructions a literal
    /// (callgrind), more than the rest of making a reading. A literal is valid UTF-8.
    var text: String {
        guard hasPointerRepresentation else { return description }  // a single-scalar literal
        return String(unsafeUninitializedCapacity: utf8CodeUnitCount) { out in
            _ = out.initialize(from: UnsafeBufferPointer(start: utf8Start, count: utf8CodeUnitCount))
            return utf8CodeUnitCount
        }
    }
}
