import Foundation

/// Files of this repository and of its build, located from this source file's path.
public enum Repository {
    /// The repository root (the folder holding `Package.swift`).
    public static let root: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .path

    /// `Tests/Fixtures/name`.
    public static func fixture(_ name: String) -> String {
        root + "/Tests/Fixtures/" + name
    }

    /// The built `sluice` executable: next to the running test bundle (SwiftPM puts products and test bundles in
    /// one folder), else in `.build/debug`. Throws when it was not built.
    public static func sluiceExecutable() throws -> String {
        var candidates: [String] = []
        if let executable = Bundle.main.executablePath {
            candidates.append((executable as NSString).deletingLastPathComponent + "/sluice")
        }
        candidates.append(Bundle.main.bundlePath + "/sluice")
        candidates.append(root + "/.build/debug/sluice")
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw PeerError("no sluice executable (looked at \(candidates)); run `swift build` first")
        }
        return found
    }
}
