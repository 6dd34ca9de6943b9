import Foundation
import SluiceTestSupport

/// One case of `Tests/Fixtures/hostile-targets.txt`: a request target and what the gateway must answer (the file's
/// header describes the format).
struct HostileTarget: Sendable, CustomStringConvertible {
    /// Which upstream the target is aimed at.
    enum Group: String, Sendable {
        /// The `directory` upstream `local`.
        case local
        /// The `http` upstream `web` on the fault origin.
        case web
        /// The target is the `Location` an origin answers for `/stream/rN/a.bin`.
        case redirect
    }

    /// The ports the placeholders stand for.
    struct Ports: Sendable {
        let sentinel: Int
        let origin: Int

        func resolve(_ text: String) -> String {
            text.replacingOccurrences(of: "{sentinel}", with: "\(sentinel)")
                .replacingOccurrences(of: "{origin}", with: "\(origin)")
        }
    }

    let line: Int
    let group: Group
    let status: Int
    /// The file the request reaches, percent-encoded, relative to the root: served byte for byte on 200, asked of the
    /// origin on any status. Nil: no file may be read and no request may reach the origin.
    let encodedPath: String?
    /// The target as written, escapes and placeholders unresolved.
    let text: String

    var description: String { "line \(line) \(group) \(text.prefix(100))" }

    /// ``encodedPath`` decoded, its placeholders resolved.
    func path(_ ports: Ports) -> String? {
        encodedPath.flatMap(\.removingPercentEncoding).map(ports.resolve)
    }

    /// The target's bytes: `\xNN` is that byte.
    func bytes(_ ports: Ports) -> [UInt8] {
        var bytes: [UInt8] = []
        var rest = Substring(ports.resolve(text))
        while let escape = rest.range(of: "\\x") {
            bytes += rest[..<escape.lowerBound].utf8
            let hex = rest[escape.upperBound...].prefix(2)
            bytes.append(UInt8(hex, radix: 16)!)
            rest = rest[hex.endIndex...]
        }
        return bytes + rest.utf8
    }

    /// Every case of the corpus file; throws at the first line that is not `GROUP STATUS[=PATH] TARGET`.
    static func corpus() throws -> [HostileTarget] {
        let text = try String(contentsOfFile: Repository.fixture("hostile-targets.txt"), encoding: .utf8)
        var cases: [HostileTarget] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: " ", maxSplits: 2)
            let expectation = fields.count == 3 ? fields[1].split(separator: "=", maxSplits: 1) : []
            guard let group = fields.first.flatMap({ Group(rawValue: String($0)) }),
                let status = expectation.first.flatMap({ Int($0) })
            else { throw PeerError("hostile-targets.txt line \(index + 1) is malformed: \(line)") }
            let path = expectation.count == 2 ? String(expectation[1]) : nil
            cases.append(
                HostileTarget(
                    line: index + 1, group: group, status: status, encodedPath: path, text: String(fields[2])))
        }
        return cases
    }
}
