import Foundation
import SluiceGateway

/// What `sluice cache` prints: aligned text for people, or the admin API's JSON documents with `--json`.
enum CacheText {
    static func stats(_ result: CacheStatsResult, json: Bool) -> String {
        switch result {
        case .server(let totals):
            if json { return text(AdminJSON.encode(totals, pretty: true)) }
            let reasons = totals.evictionsByReason.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            return table([
                ("entries", String(totals.entries)),
                ("disk", "\(bytes(totals.diskBytes)) of \(bytes(totals.maxBytes))"),
                ("hits", String(totals.hits)),
                ("partial hits", String(totals.partialHits)),
                ("misses", String(totals.misses)),
                ("bytes sent from cache", bytes(totals.bytesSentFromCache)),
                ("bytes sent from upstream", bytes(totals.bytesSentFromUpstream)),
                ("bytes fetched", bytes(totals.bytesFetched)),
                ("byte hit ratio", String(format: "%.1f%%", totals.byteHitRatio * 100)),
                ("request hit ratio", String(format: "%.1f%%", totals.requestHitRatio * 100)),
                ("evictions", "\(totals.evictions) (\(reasons.joined(separator: ", ")))"),
                ("inflight fetches", String(totals.inflightFetches)),
            ])
        case .offline(let stats):
            if json { return text(AdminJSON.encode(stats, pretty: true)) }
            return table([
                ("entries", String(stats.entries)),
                ("pinned", String(stats.pinned)),
                ("cached", bytes(stats.cachedBytes)),
                ("disk", "\(bytes(stats.diskBytes)) of \(bytes(stats.maxBytes))"),
            ])
        }
    }

    static func list(_ assets: [AdminAssetSummary], json: Bool) -> String {
        if json { return text(AdminJSON.encode(assets, pretty: true)) }
        guard !assets.isEmpty else { return "(no cached assets)" }
        let formatter = ISO8601DateFormatter()
        return assets.map { asset in
            let cached = "\(bytes(asset.cachedBytes)) / \(bytes(asset.contentLength))"
            let pinned = asset.pinned ? "pinned" : "      "
            return "\(cached.padding(toLength: 24, withPad: " ", startingAt: 0)) \(pinned)  "
                + "\(formatter.string(from: asset.lastAccess))  \(asset.assetId)"
        }.joined(separator: "\n")
    }

    static func verify(_ report: AdminVerifyReport, json: Bool) -> String {
        if json { return text(AdminJSON.encode(report, pretty: true)) }
        var lines = [
            "checked \(report.assetsChecked) assets, \(report.chunksChecked) chunks, \(bytes(report.bytesChecked)): "
                + (report.bad.isEmpty ? "all good" : "\(report.bad.count) bad")
        ]
        lines += report.bad.map { "bad chunk \($0.chunk) of \($0.assetId)" }
        if report.dropped > 0 { lines.append("dropped \(report.dropped) bad chunks; they are fetched again when read") }
        return lines.joined(separator: "\n")
    }

    static func rekey(_ report: AdminRekey, json: Bool) -> String {
        if json { return text(AdminJSON.encode(report, pretty: true)) }
        guard report.state == "done" else { return "rekey \(report.state): \(report.error ?? "see the gateway's log")" }
        return
            "re-sealed \(report.chunksResealed) chunks and \(report.assetsResealed) asset entries under the current key"
            + (report.chunksDropped > 0 ? "; \(report.chunksDropped) chunks dropped (fetched again when read)" : "")
            + "; previous keys can now be removed from the configuration"
    }

    static func rekeyProgress(_ progress: AdminRekey) -> String {
        "rekey: \(progress.chunksResealed + progress.chunksDropped) of \(progress.chunksTotal) chunks"
    }

    /// `1.5 MiB`, `512 B`.
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }

    private static func table(_ rows: [(String, String)]) -> String {
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }.joined(
            separator: "\n")
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
