import Foundation

extension RawHTTP {
    /// Opens `connections` connections to 127.0.0.1:`port` (then calls `opened`) and sends each a byte of a
    /// never-ending request head every `interval` until the server closes it (for at most `limit`); returns when
    /// each one was seen closed, after `started`, for the connections the server closed.
    public static func drip(
        connections: Int, port: Int, interval: Duration = .milliseconds(100), limit: Duration = .seconds(10),
        since started: ContinuousClock.Instant = .now, opened: () -> Void = {}
    ) throws -> [Duration] {
        var open = try (0..<connections).map { _ in try connect(port: port) }
        defer { for descriptor in open { close(descriptor) } }
        opened()
        let head = Array("GET /slow HTTP/1.1\r\nHost: t\r\nX-Drip: ".utf8)
        var lifetimes: [Duration] = []
        var sent = 0
        while !open.isEmpty, ContinuousClock.now - started < limit {
            let byte = sent < head.count ? head[sent] : UInt8(ascii: "a")
            sent += 1
            open.removeAll { descriptor in
                var probe: UInt8 = 0
                let closed =
                    recv(descriptor, &probe, 1, Int32(MSG_DONTWAIT)) == 0
                    || withUnsafePointer(to: byte) { Glibc.send(descriptor, $0, 1, Int32(MSG_NOSIGNAL)) } != 1
                if closed {
                    lifetimes.append(ContinuousClock.now - started)
                    close(descriptor)
                }
                return closed
            }
            usleep(useconds_t(interval / .microseconds(1)))
        }
        return lifetimes
    }
}
