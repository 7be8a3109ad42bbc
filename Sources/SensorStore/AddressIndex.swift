import SensorDecode

/// Address → slot (a non-negative index into the caller's array), for the lookups made once per
/// row: the downsampler's entry of a reading's sensor and the commit's slot of a row's sensor.
///
/// Why not `Dictionary<BDAddress, …>`: it hashes every key with SipHash (`Hasher`), twice per
/// row, which was most of the ingest's cost per row (BENCHMARKS.md). An address is already 48 well-mixed bits, so one multiplication (Fibonacci hashing: the top bits
/// of `raw × 2⁶⁴/φ`) spreads them over the table.
///
/// Open addressing with linear probing. INVARIANTS: the table's size is a power of two and at
/// least twice `count` (so a probe always meets an empty cell); every key sits in the run of
/// occupied cells that starts at its home cell (`home(key)`) with no empty cell between; removal
/// shifts later cells of the run back to keep that (no tombstones, so lookups never slow down).
/// Memory: 16 bytes per cell, at most 4 cells per key ever held at once.
///
/// Not a defence against chosen addresses: an attacker who picks addresses colliding in the top
/// bits makes probes long, but never more than `count` cells, and `count` is bounded by the
/// caller (`maxSensors`, one batch's sensors), as a `Dictionary`'s memory would be.
struct AddressIndex {
    private struct Cell {
        var key: UInt64
        /// The slot, or -1 for an empty cell.
        var value: Int
    }

    private var cells: [Cell]
    /// 64 − log2(cells.count): the hash's top bits select the home cell.
    private var shift: UInt64
    private(set) var count = 0

    /// Room for `capacity` keys before the first growth.
    init(capacity: Int = 8) {
        var size = 8
        while size < 2 * capacity { size *= 2 }
        cells = Array(repeating: Cell(key: 0, value: -1), count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    private var mask: Int { cells.count - 1 }

    @inline(__always)
    private func home(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift) }

    /// The slot of `address`, `nil` if absent.
    @inline(__always)
    subscript(address: BDAddress) -> Int? {
        let key = address.rawValue
        var i = home(key)
        while true {
            let c = cells[i]
            if c.value < 0 { return nil }
            if c.key == key { return c.value }
            i = (i + 1) & mask
        }
    }

    /// Sets the slot of `address` (a new key or a new slot for a present one). `slot` ≥ 0.
    mutating func set(_ address: BDAddress, _ slot: Int) {
        precondition(slot >= 0, "AddressIndex slots are non-negative")
        if 2 * (count + 1) > cells.count { grow() }
        let key = address.rawValue
        var i = home(key)
        while cells[i].value >= 0 && cells[i].key != key { i = (i + 1) & mask }
        if cells[i].value < 0 { count += 1 }
        cells[i] = Cell(key: key, value: slot)
    }

    /// Removes `address`; returns its slot, `nil` if absent.
    @discardableResult
    mutating func remove(_ address: BDAddress) -> Int? {
        let key = address.rawValue
        var i = home(key)
        while cells[i].key != key || cells[i].value < 0 {
            if cells[i].value < 0 { return nil }
            i = (i + 1) & mask
        }
        let removed = cells[i].value
        count -= 1
        // Backward shift: each later cell of the run moves into the hole unless the hole lies
        // between its home and itself (cyclically), where a lookup would no longer reach it.
        var hole = i
        var j = i
        while true {
            j = (j + 1) & mask
            if cells[j].value < 0 { break }
            let h = home(cells[j].key)
            // Distance from home to j and from the hole to j, around the ring.
            if (j &- h) & mask >= (j &- hole) & mask {
                cells[hole] = cells[j]
                hole = j
            }
        }
        cells[hole] = Cell(key: 0, value: -1)
        return removed
    }

    /// Empties the index; keeps its cells only if `keepingCapacity`.
    mutating func removeAll(keepingCapacity: Bool = false) {
        if keepingCapacity {
            for i in cells.indices { cells[i].value = -1 }
        } else {
            self = AddressIndex()
        }
        count = 0
    }

    private mutating func grow() {
        let old = cells
        cells = Array(repeating: Cell(key: 0, value: -1), count: old.count * 2)
        shift -= 1
        count = 0
        for c in old where c.value >= 0 { set(BDAddress(rawValue: c.key), c.value) }
    }
}
