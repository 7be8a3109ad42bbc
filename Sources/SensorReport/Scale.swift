/// A linear map from a domain (values or times) to a range of drawing coordinates. A domain of
/// zero width maps everything to the middle of the range.
public struct LinearScale: Sendable, Equatable {
    public var domain: (lower: Double, upper: Double)
    public var range: (lower: Double, upper: Double)

    public init(domain: (Double, Double), range: (Double, Double)) {
        self.domain = domain
        self.range = range
    }

    public func callAsFunction(_ v: Double) -> Double {
        let span = domain.upper - domain.lower
        guard span != 0 else { return (range.lower + range.upper) / 2 }
        return range.lower + (v - domain.lower) / span * (range.upper - range.lower)
    }

    public static func == (a: LinearScale, b: LinearScale) -> Bool {
        a.domain == b.domain && a.range == b.range
    }
}

/// Round tick values for a value axis: steps of 1, 2, 2.5 or 5 × 10^k, the axis widened to whole
/// steps so that every value lies between its first and last tick.
public struct NiceTicks: Sendable, Equatable {
    public var step: Double
    /// The first and last tick: the axis's extent.
    public var lower: Double
    public var upper: Double
    /// Decimals a label needs to show `step` exactly (0 for whole steps).
    public var decimals: Int

    /// Ticks, computed from integer multiples of `step` (no running sum, so no drift).
    public var values: [Double] {
        let first = (lower / step).rounded()
        let last = (upper / step).rounded()
        return stride(from: first, through: last, by: 1).map { $0 * step }
    }

    /// Ticks for values in `[min, max]`, about `target` of them (at most `target` + 2).
    /// An empty or zero-width extent is widened around its value, so a flat line sits mid-axis.
    public init(min lo: Double, max hi: Double, target: Int = 5) {
        var lo = lo
        var hi = hi
        if !(lo.isFinite && hi.isFinite) || lo > hi {
            lo = 0
            hi = 1
        }
        if lo == hi {
            let pad = Swift.max(abs(lo) * 0.05, 0.5)
            lo -= pad
            hi += pad
        }
        let raw = (hi - lo) / Double(Swift.max(1, target - 1))
        var magnitude = 1.0
        var exponent = 0
        while raw / magnitude >= 10 {
            magnitude *= 10
            exponent += 1
        }
        while raw / magnitude < 1 {
            magnitude /= 10
            exponent -= 1
        }
        let fraction = raw / magnitude
        let nice: Double
        var extraDecimal = 0
        if fraction <= 1 {
            nice = 1
        } else if fraction <= 2 {
            nice = 2
        } else if fraction <= 2.5 {
            nice = 2.5
            extraDecimal = 1
        } else if fraction <= 5 {
            nice = 5
        } else {
            nice = 10
        }
        step = nice * magnitude
        decimals = Swift.max(0, -exponent + extraDecimal - (nice == 10 ? 1 : 0))
        lower = (lo / step).rounded(.down) * step
        upper = (hi / step).rounded(.up) * step
        if lower == upper { upper = lower + step }
    }
}

/// A labelled instant on a time axis.
public struct TimeTick: Sendable, Equatable {
    public var micros: Int64
    public var label: String
}

/// Time-axis ticks at round local times: every 3 hours over a day (`14:00`), local midnights over
/// a week (`Tue 24`), Monday midnights over a month (`23 Nov`), the first of each month over a
/// year (`Mar`, and the year at January: `2027`).
public enum TimeTicks {
    public static func ticks(from: Int64, to: Int64, range: ChartRange, local: LocalTime) -> [TimeTick] {
        guard from < to else { return [] }
        let firstLocal = local.localSeconds(micros: from)
        let lastLocal = local.localSeconds(micros: to)
        let firstDay = CivilDate.floorDiv(firstLocal, 86400) - 1
        let lastDay = CivilDate.floorDiv(lastLocal, 86400) + 1
        // Candidate local wall times, each turned into its instant; those inside [from, to) are kept.
        var candidates: [(local: Int64, label: String)] = []
        switch range {
        case .day:
            for day in firstDay...lastDay {
                for hour in stride(from: 0, to: 24, by: 3) {
                    candidates.append((day * 86400 + Int64(hour) * 3600, (hour < 10 ? "0" : "") + "\(hour):00"))
                }
            }
        case .week:
            for day in firstDay...lastDay {
                let (_, _, d) = CivilDate.civil(fromDays: day)
                candidates.append((day * 86400, CivilDate.weekdayNames[CivilDate.weekday(days: day)] + " \(d)"))
            }
        case .month:
            for day in firstDay...lastDay where CivilDate.weekday(days: day) == 0 {
                let (_, m, d) = CivilDate.civil(fromDays: day)
                candidates.append((day * 86400, "\(d) " + CivilDate.monthNames[Int(m) - 1]))
            }
        case .year:
            var (y, m, _) = CivilDate.civil(fromDays: firstDay)
            while CivilDate.days(year: y, month: m, day: 1) <= lastDay {
                let day = CivilDate.days(year: y, month: m, day: 1)
                candidates.append((day * 86400, m == 1 ? "\(y)" : CivilDate.monthNames[Int(m) - 1]))
                m += 1
                if m > 12 {
                    m = 1
                    y += 1
                }
            }
        }
        var out: [TimeTick] = []
        for c in candidates {
            let micros = local.utcSeconds(localSeconds: c.local) * 1_000_000
            guard micros >= from, micros < to, out.last.map({ $0.micros < micros }) ?? true else { continue }
            out.append(TimeTick(micros: micros, label: c.label))
        }
        return out
    }
}
