extension StringProtocol {
    /// The text without leading and trailing OWS (spaces and horizontal tabs, RFC 9110 §5.6.3).
    public func trimmingHTTPWhitespace() -> SubSequence {
        let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isOWS($0) }) else { return self[endIndex...] }
        let end = lastIndex(where: { !isOWS($0) })!
        return self[start...end]
    }
}
