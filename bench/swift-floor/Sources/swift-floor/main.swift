// bench/mhd_floor.c written in Swift, for bench/hitpath: the same file, ranges, header fields, daemon and sending
// (copied from a shared mapping of the file), done the way a lean Swift hit path would do it: the
// `Range` field's bytes read in place, numbers written into a stack buffer, no allocation of its own per request.
// It shows how much of the gateway's distance from the C floor a Swift request path has to cost. A benchmark
// reference, not part of Sluice.
//
// Usage: swift-floor FILE PORT THREADS
import CSwiftFloor
import Glibc
import Synchronization

/// The served file and the fields every answer carries; shared by the daemon's threads, never changed.
final class ServedFile: @unchecked Sendable {
    let size: Int64
    let mapping: UnsafeRawPointer
    let etag: String
    let lastModified: String
    let requestCount = Atomic<UInt64>(0)

    init?(path: String) {
        var info = stat()
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0, fstat(descriptor, &info) == 0, info.st_size > 0,
            let mapped = mmap(nil, Int(info.st_size), PROT_READ, MAP_SHARED, descriptor, 0), mapped != MAP_FAILED
        else { return nil }
        size = Int64(info.st_size)
        mapping = UnsafeRawPointer(mapped)
        etag = "\"\(String(info.st_mtim.tv_sec, radix: 16))-\(String(size, radix: 16))\""
        var seconds = info.st_mtim.tv_sec
        var modified = tm()
        gmtime_r(&seconds, &modified)
        lastModified = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            strftime(buffer.baseAddress!, 64, "%a, %d %b %Y %H:%M:%S GMT", &modified)
            return String(cString: buffer.baseAddress!)
        }
    }
}

/// `bytes=FIRST-LAST` read in place: the range, nil when malformed or outside a file of `size` bytes.
func parseRange(_ field: UnsafePointer<CChar>, size: Int64) -> (first: Int64, last: Int64)? {
    guard strncmp(field, "bytes=", 6) == 0 else { return nil }
    var cursor = field + 6
    func number() -> Int64? {
        var value: Int64 = 0
        var digits = 0
        while let digit = UInt8(exactly: cursor.pointee), digit >= 48, digit <= 57, digits < 18 {
            value = value * 10 + Int64(digit - 48)
            cursor += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }
    guard let first = number(), cursor.pointee == 45 else { return nil }
    cursor += 1
    guard let last = number(), cursor.pointee == 0, first <= last, last < size else { return nil }
    return (first, last)
}

/// Writes `value` in `radix` at `out` and returns the position after it.
func write(_ value: UInt64, radix: UInt64 = 10, at out: UnsafeMutablePointer<CChar>) -> UnsafeMutablePointer<CChar> {
    var count = 1
    var rest = value / radix
    while rest > 0 {
        count += 1
        rest /= radix
    }
    rest = value
    for position in stride(from: count - 1, through: 0, by: -1) {
        let digit = UInt8(rest % radix)
        out[position] = CChar(digit < 10 ? 48 + digit : 87 + digit)
        rest /= radix
    }
    return out + count
}

/// Writes `text` (ASCII) at `out` and returns the position after it.
func write(_ text: StaticString, at out: UnsafeMutablePointer<CChar>) -> UnsafeMutablePointer<CChar> {
    text.withUTF8Buffer { bytes in
        for (index, byte) in bytes.enumerated() { out[index] = CChar(byte) }
    }
    return out + text.utf8CodeUnitCount
}

/// The access handler: queues the answer on the second call, as the gateway does (queuing on the first closes
/// the connection).
func answer(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, upload: UnsafePointer<CChar>?,
    uploadSize: UnsafeMutablePointer<Int>?, request: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let context, let connection, let request else { return .NO }
    if request.pointee == nil {
        request.pointee = context
        return .YES
    }
    let file = Unmanaged<ServedFile>.fromOpaque(context).takeUnretainedValue()
    let field = MHD_lookup_connection_value(connection, .HEADER_KIND, "Range")
    var (first, last) = (Int64(0), file.size - 1)
    if let field {
        guard let range = parseRange(field, size: file.size) else { return .NO }
        (first, last) = range
    }
    let count = last - first + 1
    guard
        let response = MHD_create_response_from_buffer(
            Int(count), UnsafeMutableRawPointer(mutating: file.mapping + Int(first)), .RESPMEM_PERSISTENT)
    else { return .NO }
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 96) { buffer in
        let start = buffer.baseAddress!
        var end = write("bytes ", at: start)
        end = write(UInt64(first), at: end)
        end = write("-", at: end)
        end = write(UInt64(last), at: end)
        end = write("/", at: end)
        write(UInt64(file.size), at: end).pointee = 0
        MHD_add_response_header(response, "Content-Range", start)
        let id = file.requestCount.wrappingAdd(1, ordering: .relaxed).oldValue
        write(id, radix: 16, at: start).pointee = 0
        MHD_add_response_header(response, "X-Request-Id", start)
    }
    MHD_add_response_header(response, "Accept-Ranges", "bytes")
    MHD_add_response_header(response, "Content-Type", "application/octet-stream")
    file.etag.withCString { _ = MHD_add_response_header(response, "ETag", $0) }
    file.lastModified.withCString { _ = MHD_add_response_header(response, "Last-Modified", $0) }
    MHD_add_response_header(response, "X-Cache", "HIT")
    let queued = MHD_queue_response(connection, field == nil ? 200 : 206, response)
    MHD_destroy_response(response)
    return queued
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let port = UInt16(arguments[2]), let threads = UInt32(arguments[3]) else {
    print("usage: swift-floor FILE PORT THREADS")
    exit(2)
}
guard let file = ServedFile(path: arguments[1]) else {
    perror(arguments[1])
    exit(1)
}
guard swift_floor_start(answer, Unmanaged.passRetained(file).toOpaque(), port, threads) != nil else {
    print("swift-floor: cannot start on port \(port)")
    exit(1)
}
while true { pause() }
