import Foundation
import SluiceCore
import SluiceGateway
import SluiceTestSupport
import Testing

@Suite("sluice cache CLI")
struct AdminCLITests {
    static let chunkArguments = ["--chunk-size", "64KiB"]

    @Test("offline on a cache directory: stats, ls, purge, and verify that finds, drops and reports a bad chunk")
    func offline() async throws {
        let sluice = try Repository.sluiceExecutable()
        let cache = try TemporaryDirectory()
        let inCache: (inout SluiceConfig) -> Void = { $0.cache.directory = cache.file("cache") }
        try await AdminFixture.run(files: ["a.bin": 150_000, "b.bin": 1_000], configure: inCache) { fixture in
            _ = try await fixture.stream("a.bin")
            _ = try await fixture.stream("b.bin")
            #expect(
                try await AdminFixture.eventually {
                    let page = try await fixture.object("/admin/cache/assets")["assets"] as? [[String: Any]] ?? []
                    return page.compactMap { AdminFixture.integer($0["cachedBytes"]) }.reduce(0, +) == 151_000
                })
        }
        let directory = ["--dir", cache.file("cache")] + Self.chunkArguments

        let stats = try await CommandRun.run(sluice, ["cache", "stats", "--json"] + directory)
        #expect(stats.status == 0, "\(stats.errors)")
        let totals = try #require(try JSONSerialization.jsonObject(with: Data(stats.output.utf8)) as? [String: Any])
        #expect(totals["entries"] as? Int == 2)
        #expect(AdminFixture.integer(totals["cachedBytes"]) == 151_000)
        #expect(totals["pinned"] as? Int == 0)
        #expect((AdminFixture.integer(totals["diskBytes"]) ?? 0) > 151_000)

        let text = try await CommandRun.run(sluice, ["cache", "stats"] + directory)
        #expect(text.status == 0)
        #expect(text.output.contains("entries  2"))

        let list = try await CommandRun.run(sluice, ["cache", "ls", "--json"] + directory)
        #expect(list.status == 0, "\(list.errors)")
        let assets = try AdminJSON.decode([AdminAssetSummary].self, from: Array(list.output.utf8))
        #expect(Set(assets.map(\.assetId)) == ["media://a.bin", "media://b.bin"])
        #expect(assets.first { $0.assetId == "media://a.bin" }?.cachedBytes == 150_000)
        let listed = try await CommandRun.run(sluice, ["cache", "ls"] + directory)
        #expect(listed.output.split(separator: "\n").count == 2)
        #expect(listed.output.contains("media://b.bin"))

        let purge = try await CommandRun.run(sluice, ["cache", "purge", "media://b.bin"] + directory)
        #expect(purge.status == 0, "\(purge.errors)")
        #expect(purge.output == "purged media://b.bin\n")
        let again = try await CommandRun.run(sluice, ["cache", "purge", "media://b.bin"] + directory)
        #expect(again.status == 1)
        #expect(again.errors.contains("not cached"))

        let clean = try await CommandRun.run(sluice, ["cache", "verify"] + directory)
        #expect(clean.status == 0, "\(clean.output)\(clean.errors)")
        #expect(clean.output.contains("checked 1 assets, 3 chunks"))

        try Self.corruptFirstChunk(under: cache.file("cache/data"))
        let bad = try await CommandRun.run(sluice, ["cache", "verify", "--json"] + directory)
        #expect(bad.status == 1)
        let report = try AdminJSON.decode(AdminVerifyReport.self, from: Array(bad.output.utf8))
        #expect(report.bad == [AdminVerifyReport.BadChunk(assetId: "media://a.bin", chunk: 0)])
        #expect(report.dropped == 1)
        let after = try await CommandRun.run(sluice, ["cache", "verify"] + directory)
        #expect(after.status == 0, "the bad chunk was dropped")
        #expect(after.output.contains("2 chunks"))
    }

    @Test("against a running gateway with --server: the same commands through the admin API")
    func server() async throws {
        let sluice = try Repository.sluiceExecutable()
        try await AdminFixture.run(files: ["a.bin": 70_000, "b.bin": 10]) { fixture in
            _ = try await fixture.stream("a.bin")
            _ = try await fixture.stream("b.bin")
            #expect(
                try await AdminFixture.eventually { try await fixture.object("/admin/cache")["entries"] as? Int == 2 })
            let server = ["--server", fixture.gateway.url("")]
            let token = ["SLUICE_ADMIN_TOKEN": AdminFixture.token]

            let stats = try await CommandRun.run(sluice, ["cache", "stats", "--json"] + server, environment: token)
            #expect(stats.status == 0, "\(stats.errors)")
            let totals = try AdminJSON.decode(AdminCacheTotals.self, from: Array(stats.output.utf8))
            #expect(totals.entries == 2)
            #expect(totals.misses == 2)
            #expect(totals.maxBytes == AdminFixture.maxSize)

            let list = try await CommandRun.run(
                sluice, ["cache", "ls", "--json", "--limit", "1"] + server, environment: token)
            #expect(try AdminJSON.decode([AdminAssetSummary].self, from: Array(list.output.utf8)).count == 1)

            let purge = try await CommandRun.run(
                sluice, ["cache", "purge", "media://b.bin", "--token-env", "OTHER"] + server,
                environment: ["OTHER": AdminFixture.token])
            #expect(purge.status == 0, "\(purge.errors)")
            #expect(try await fixture.admin("GET", "/admin/cache/assets/media/b.bin").status == 404)

            let verify = try await CommandRun.run(sluice, ["cache", "verify"] + server, environment: token)
            #expect(verify.status == 0, "\(verify.errors)")
            #expect(verify.output.contains("checked 1 assets, 2 chunks"))

            let wrong = try await CommandRun.run(
                sluice, ["cache", "stats"] + server, environment: ["SLUICE_ADMIN_TOKEN": "nope"])
            #expect(wrong.status == 1)
            #expect(wrong.errors.contains("401"))
            #expect(!wrong.errors.contains("nope"), "the token is never printed")
            let none = try await CommandRun.run(
                sluice, ["cache", "stats"] + server, environment: ["SLUICE_ADMIN_TOKEN": ""])
            #expect(none.status == 64)
        }
    }

    @Test(
        "bad command lines exit 64",
        arguments: [
            ["cache"], ["cache", "frobnicate", "--dir", "/tmp"], ["cache", "stats", "--dir", "/tmp"],
            ["cache", "purge", "--dir", "/tmp", "--chunk-size", "64KiB"],
            ["cache", "purge", "no-scheme", "--dir", "/tmp"],
            ["cache", "stats", "--server", "ftp://x"], ["cache", "stats", "--dir", "/tmp", "--server", "http://x"],
            ["cache", "ls", "--limit", "0", "--dir", "/tmp", "--chunk-size", "64KiB"], ["cache", "stats", "--bogus"],
        ])
    func usage(arguments: [String]) async throws {
        let run = try await CommandRun.run(
            try Repository.sluiceExecutable(), arguments, environment: ["SLUICE_CONFIG": ""])
        #expect(run.status == 64, "\(arguments): \(run.errors)")
    }

    /// Flips bytes in the first chunk of the only data file under `data`.
    static func corruptFirstChunk(under data: String) throws {
        let files = (FileManager.default.enumerator(atPath: data)?.allObjects as? [String] ?? []).filter {
            $0.hasSuffix(".dat")
        }
        try #require(files.count == 1, "\(files)")
        let handle = try #require(FileHandle(forUpdatingAtPath: data + "/" + files[0]))
        defer { try? handle.close() }
        try handle.seek(toOffset: 100)
        let original = handle.readData(ofLength: 16)
        try handle.seek(toOffset: 100)
        handle.write(Data(original.map { ~$0 }))
    }
}
