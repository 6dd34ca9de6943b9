extension Duration {
    /// Whole milliseconds, as libcurl's `_MS` options take them.
    var milliseconds: Int {
        Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
    }
}
