import SluiceCache
import SluiceCore
import SluiceHTTP

extension AdminHandler {
    /// `GET /metrics`.
    func metricsResponse() throws(CacheError) -> HTTPResponse {
        let text = MetricsExposition.render(
            snapshot: metrics.snapshot, stats: try store.stats(), inflightFetches: coordinator.inflightFetches,
            upstreams: upstreamConfigs.keys.sorted(), tokens: upstreams.compactMapValues(\.tokenStatus),
            loads: upstreams.compactMapValues(\.requestLoad), droppedLogLines: LogWriter.standardError.droppedLines)
        return HTTPResponse(
            status: 200, headers: ["Content-Type": PrometheusText.contentType], body: .bytes(Array(text.utf8)))
    }
}
