import SluiceTestSupport

/// A folder holding one 64 MiB random file at a path with a space (so stream URLs need percent-encoding).
struct MediaFixture: Sendable {
    /// The folder the origins serve.
    let folder: TemporaryDirectory
    /// The file's bytes.
    let data: [UInt8]
    /// Its path inside the folder.
    let path = "films/big file.bin"

    /// 64 MiB.
    static let length = 64 << 20

    /// Writes the file.
    init(length: Int = MediaFixture.length) async throws {
        folder = try TemporaryDirectory()
        data = try await RandomData.file(path, in: folder, count: length)
    }
}
