/// The release version printed by `sluice version`.
enum SluiceVersion {
    static let current = "0.2.0"
}
