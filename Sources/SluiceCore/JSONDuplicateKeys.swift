import Foundation

/// Finds keys given twice in one JSON object. RFC 8259 §4 leaves duplicate names to the parser, and
/// JSONSerialization keeps the last one silently: a second `"listen"` or a second upstream of one name would
/// override the first with no word. The text has already been parsed, so it is well formed; this only walks its
/// tokens, tracking where each object sits.
enum JSONDuplicateKeys {
    /// The configuration key (`server.listen`, `upstreams.nas`, `a.list[2].b`) of every repeated name, in order.
    static func paths(in data: Data) -> [String] {
        var walker = Walker()
        walker.walk([UInt8](data))
        return walker.duplicates
    }

    private struct Container {
        let isObject: Bool
        let path: String
        var keys: Set<ExactString> = []
        /// The member name being read (objects) or the element's position (arrays).
        var key = ""
        var index = 0
        var expectsKey: Bool
    }

    private struct Walker {
        var stack: [Container] = []
        var duplicates: [String] = []

        mutating func walk(_ bytes: [UInt8]) {
            var position = 0
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = byte == UInt8(ascii: "{")
                    stack.append(Container(isObject: isObject, path: childPath(), expectsKey: isObject))
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    _ = stack.popLast()
                case UInt8(ascii: ","):
                    if stack.last?.isObject == true { stack[stack.count - 1].expectsKey = true }
                    if stack.last?.isObject == false { stack[stack.count - 1].index += 1 }
                case UInt8(ascii: "\""):
                    let end = Self.endOfString(bytes, from: position)
                    if stack.last?.expectsKey == true { name(Array(bytes[position..<end])) }
                    position = end
                    continue
                default:
                    break
                }
                position += 1
            }
        }

        /// Records a member name (its quoted token) in the innermost object.
        private mutating func name(_ token: [UInt8]) {
            let decoded = (try? JSONSerialization.jsonObject(with: Data(token), options: .fragmentsAllowed)) as? String
            let key = decoded ?? String(decoding: token, as: UTF8.self)
            var top = stack[stack.count - 1]
            top.expectsKey = false
            top.key = key
            if !top.keys.insert(ExactString(key)).inserted { duplicates.append(ConfigReader.key(top.path, key)) }
            stack[stack.count - 1] = top
        }

        /// Where a value opened now sits.
        private func childPath() -> String {
            guard let top = stack.last else { return "" }
            return top.isObject ? ConfigReader.key(top.path, top.key) : "\(top.path)[\(top.index)]"
        }

        /// One past the closing quote of the string starting at `start`.
        private static func endOfString(_ bytes: [UInt8], from start: Int) -> Int {
            var position = start + 1
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\\"): position += 2
                case UInt8(ascii: "\""): return position + 1
                default: position += 1
                }
            }
            return position
        }
    }
}
