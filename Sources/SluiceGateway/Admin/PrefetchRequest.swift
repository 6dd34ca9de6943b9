import Foundation
import SluiceCore

/// The body of `POST /admin/cache/assets/{upstream}/{path}/prefetch`: `{"ranges": [[first, last], …], "pin": bool}`,
/// both optional, and an empty body meaning the whole object, pin unchanged.
struct PrefetchRequest: Decodable, Equatable {
    /// Most ranges one request may name.
    static let maxRanges = 1_024

    /// The ranges to warm, `[first, last]` inclusive; nil means the whole object.
    var ranges: [[Int64]]?
    /// Pin (true) or unpin (false) the asset; nil leaves it as it is.
    var pin: Bool?

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case ranges, pin
    }

    /// Why a body was refused (the 400's detail).
    struct Invalid: Error, Equatable {
        /// What is wrong, for the client.
        let detail: String
    }

    /// Parses and checks `body`.
    static func parse(_ body: [UInt8]) throws(Invalid) -> PrefetchRequest {
        guard !body.isEmpty else { return PrefetchRequest() }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw Invalid(detail: "the body must be empty or a JSON object")
        }
        let known = Set(CodingKeys.allCases.map(\.rawValue))
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw Invalid(detail: "unknown field \"\(unknown)\" (expected \"ranges\" and \"pin\")")
        }
        let request: PrefetchRequest
        do {
            request = try JSONDecoder().decode(PrefetchRequest.self, from: Data(body))
        } catch {
            throw Invalid(detail: "\"ranges\" must be an array of [first, last] byte offsets and \"pin\" a boolean")
        }
        if let ranges = request.ranges {
            guard !ranges.isEmpty, ranges.count <= maxRanges else {
                throw Invalid(detail: "\"ranges\" must hold 1 to \(maxRanges) ranges (omit it for the whole object)")
            }
            for range in ranges {
                guard range.count == 2, range[0] >= 0, range[0] <= range[1] else {
                    throw Invalid(detail: "each range must be [first, last] with 0 <= first <= last")
                }
            }
        }
        return request
    }

    /// The ranges inside an object of `length` bytes, each `last` cut at the end of the object; the whole
    /// object when none were named.
    func byteRanges(length: Int64) throws(Invalid) -> [ByteRange] {
        guard let ranges else { return length > 0 ? [ByteRange(first: 0, last: length - 1)] : [] }
        return try ranges.map { range throws(Invalid) in
            guard range[0] < length else {
                throw Invalid(
                    detail: "range [\(range[0]), \(range[1])] starts past the end of the object (\(length) bytes)")
            }
            return ByteRange(first: range[0], last: min(range[1], length - 1))
        }
    }
}
