import SensorDecode

extension JSON {
    /// `decode --explain`: one object per advertisement naming every decoder asked, why it was
    /// asked and what it answered; when none was, the keys no decoder selects.
    static func explanation(_ ad: Advertisement, _ asked: [Registry.Explanation]) -> String {
        var s = "{\"address\":\"\(ad.address)\",\"explain\":["
        s += asked.map { e in
            "{\"decoder\":" + string(e.decoder) + ",\"selected_by\":["
                + e.selectedBy.map { string($0.description) }.joined(separator: ",") + "],\"outcome\":"
                + string(e.outcome.summary) + "}"
        }.joined(separator: ",")
        s += "]"
        if asked.isEmpty {
            s += ",\"no_decoder_selects\":[" + Registry.keys(of: ad).map { string($0.description) }.joined(separator: ",") + "]"
        }
        return s + "}"
    }
}
