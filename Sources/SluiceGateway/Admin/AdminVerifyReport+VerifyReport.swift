import SluiceCache

extension AdminVerifyReport {
    /// The document of a store verification.
    public init(_ report: VerifyReport) {
        self.init(
            assetsChecked: report.assetsChecked, chunksChecked: report.chunksChecked, bytesChecked: report.bytesChecked,
            bad: report.bad.map { BadChunk(assetId: $0.assetID, chunk: $0.index) }, dropped: report.dropped)
    }
}
