import CFuzzer
import Foundation
import SluiceCore

/// Range and Content-Range parsers: arbitrary field values never trap, and what they accept obeys RFC 9110.
///
/// The first 8 bytes give the representation length a Range value is weighed against; the rest is the value.
func fuzzRange(_ data: UnsafePointer<UInt8>, _ size: Int) {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let length = input.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) } & ByteCount.maximum
    let value = UnsafeRawBufferPointer(rebasing: input.dropFirst(8))
    let text = String(decoding: value, as: UTF8.self)

    // The in-place byte parser agrees with the string parser on the field it reads.
    if let plain = RangeHeader.parsePlain(value) { precondition(RangeHeader.parsePlain(text) == plain) }
    if let specs = RangeHeader.parse(text) {
        precondition(specs.count <= RangeHeader.maxRanges)
        for spec in specs { precondition(RangeHeader.parse("bytes=\(spec)") == [spec]) }
    }
    let selection = RangeSelection(headerBytes: value, length: length)
    precondition(selection == RangeSelection(header: text, length: length))
    if case .single(let range) = selection {
        precondition(0 <= range.first && range.first <= range.last && range.last < length)
    }

    if let parsed = ContentRange.parse(text) {
        // A value the parser accepts formats back to one it reads the same.
        precondition(ContentRange.parse(parsed.description) == parsed)
        if case .partial(let range, let complete) = parsed {
            precondition(range.first <= range.last && complete.map { range.last < $0 } ?? true)
        }
    }
}

exit(
    SluiceFuzz(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
        fuzzRange(data!, size)
        return 0
    })
