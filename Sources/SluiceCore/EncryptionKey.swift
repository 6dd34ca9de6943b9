import Foundation

/// The cache encryption key's text forms: 64 hex digits or base64 of exactly 32 bytes.
enum EncryptionKey {
    static let byteCount = 32

    static func decode(_ text: String) -> [UInt8]? {
        let hexDigits = Array(text.utf8)
        if hexDigits.count == 2 * byteCount {
            var bytes: [UInt8] = []
            for index in stride(from: 0, to: hexDigits.count, by: 2) {
                guard let high = hexDigits[index].hexDigitValue, let low = hexDigits[index + 1].hexDigitValue else {
                    break
                }
                bytes.append(high << 4 | low)
            }
            if bytes.count == byteCount { return bytes }
        }
        guard let data = Data(base64Encoded: text), data.count == byteCount else { return nil }
        return [UInt8](data)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }, as: UTF8.self)
    }
}
