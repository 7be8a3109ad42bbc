import SensorDecode
import TestSupport
import Testing

@testable import SensorStore

@Suite struct AddressIndexTests {
    /// Random sets and removals over a small pool of addresses (so keys meet in the same probe
    /// runs, are removed from their middle, and come back), checked against a `Dictionary`
    /// after every step: lookups of every pool address, and the count.
    @Test func agreesWithADictionaryThroughSetsAndRemovals() {
        var rng = SplitMix64(state: 0xADD7)
        for round in 0..<20 {
            let poolSize = 4 + round * 3
            let pool = (0..<poolSize).map { _ in BDAddress(rawValue: rng.next()) }
            var index = AddressIndex(capacity: 1)
            var model: [BDAddress: Int] = [:]
            for step in 0..<2000 {
                let a = pool[Int(rng.next() % UInt64(poolSize))]
                if rng.next() % 3 == 0 {
                    #expect(index.remove(a) == model.removeValue(forKey: a))
                } else {
                    index.set(a, step)
                    model[a] = step
                }
                #expect(index.count == model.count)
                for p in pool where index[p] != model[p] {
                    Issue.record("round \(round) step \(step): \(p) → \(String(describing: index[p])), not \(String(describing: model[p]))")
                    return
                }
            }
            index.removeAll(keepingCapacity: round % 2 == 0)
            #expect(index.count == 0)
            #expect(pool.allSatisfy { index[$0] == nil })
        }
    }

    /// Addresses that share their home cell form one run; removing any of them leaves the others
    /// reachable (the backward shift), whichever end of the run it was.
    @Test func removalFromARunOfOneHomeKeepsTheRestReachable() {
        // A 16-cell table (capacity 8): find addresses with the same top 4 hash bits.
        func home(_ a: BDAddress) -> UInt64 { (a.rawValue &* 0x9E37_79B9_7F4A_7C15) >> 60 }
        var same: [BDAddress] = []
        var raw: UInt64 = 1
        while same.count < 5 {
            let a = BDAddress(rawValue: raw)
            if home(a) == 3 { same.append(a) }
            raw += 1
        }
        for victim in same.indices {
            var index = AddressIndex(capacity: 8)
            for (i, a) in same.enumerated() { index.set(a, i) }
            #expect(index.remove(same[victim]) == victim)
            for (i, a) in same.enumerated() { #expect(index[a] == (i == victim ? nil : i)) }
            #expect(index.remove(same[victim]) == nil)
        }
    }
}
