import SluiceCore
import SluiceTestSupport
import Testing

/// 500 random ranges of every form, through each upstream kind, compared byte for byte with the origin file.
@Suite struct StreamRangeTests {
    @Test(arguments: OriginKind.allCases)
    func randomRangesMatchTheOrigin(kind: OriginKind) async throws {
        let media = try await MediaFixture()
        let length = media.data.count
        let origin = try await kind.start(serving: media.folder.path)
        let seed = UInt64.random(in: 0 ... .max)
        var generator = SeededGenerator(seed: seed)
        let cases = RangeCase.random(count: 500, length: length, using: &generator)
        try await TestGateway.run(upstreams: [origin.upstream]) { gateway in
            let url = gateway.streamURL("up", media.path)
            let data = media.data
            let failures = try await concurrentMap(cases, width: 8) { range -> String? in
                let result = try await TestHTTP.get(url, headers: range.header.map { ["Range": $0] } ?? [:])
                return Self.problem(with: result, for: range, data: data)
            }.compactMap { $0 }
            #expect(failures.isEmpty, "\(kind) seed \(seed): \(failures.count) of 500 wrong: \(failures.prefix(5))")
        }
        withExtendedLifetime(origin) {}
    }

    /// What is wrong with `result` as the answer to `range`, or `nil` when it is right.
    static func problem(with result: HTTPResult, for range: RangeCase, data: [UInt8]) -> String? {
        let length = data.count
        var wrong: [String] = []
        if result.status != range.expectedStatus { wrong.append("status \(result.status)") }
        if range.expectedStatus == 206, result.header("Content-Range") != range.contentRange(length: length) {
            wrong.append("Content-Range \(result.header("Content-Range") ?? "none")")
        }
        if result.header("Content-Length") != String(range.last - range.first + 1) {
            wrong.append("Content-Length \(result.header("Content-Length") ?? "none")")
        }
        if !["HIT", "MISS", "PARTIAL"].contains(result.header("X-Cache") ?? "") {
            wrong.append("X-Cache \(result.header("X-Cache") ?? "none")")
        }
        if result.header("Accept-Ranges") != "bytes" {
            wrong.append("Accept-Ranges \(result.header("Accept-Ranges") ?? "none")")
        }
        if let offset = result.body.firstDifference(from: data[range.first...range.last]) {
            wrong.append("body differs at offset \(offset) of \(result.body.count) bytes")
        }
        return wrong.isEmpty ? nil : "\(range): " + wrong.joined(separator: ", ")
    }
}
