import Foundation
import SluiceTestSupport

/// Everything under a folder as a copy of it would hold: each file's raw bytes and each entry's permission bits.
struct RawFolderScan {
    struct Entry {
        var path: String
        var isDirectory: Bool
        /// Permission bits (`st_mode & 0o777`).
        var mode: mode_t
    }

    /// The folder itself and everything under it.
    let entries: [Entry]

    init(_ root: String) throws {
        let names = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        entries = try ([root] + names.map { root + "/" + $0 }).map { path in
            var info = stat()
            guard lstat(path, &info) == 0 else { throw PeerError("lstat \(path): errno \(errno)") }
            return Entry(path: path, isDirectory: info.st_mode & S_IFMT == S_IFDIR, mode: info.st_mode & 0o777)
        }
    }

    /// The regular files.
    var files: [String] { entries.filter { !$0.isDirectory }.map(\.path) }

    /// For each file, the label of the first of `needles` found in its bytes.
    func needles(_ needles: [(label: String, bytes: [UInt8])]) throws -> [(file: String, label: String)] {
        try files.compactMap { file in
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            return needles.first { bytes.range(of: Data($0.bytes)) != nil }.map { (file, $0.label) }
        }
    }

    /// For each file, where a block of `blocks` first appears in it, at any offset.
    func blocks(_ blocks: BlockSet) throws -> [(file: String, offset: Int)] {
        try files.compactMap { file in
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
            return blocks.firstOffset(in: bytes).map { (file, $0) }
        }
    }
}

/// Blocks of ``size`` bytes to be found at any offset of a haystack, quickly enough for megabytes in a debug build:
/// a bitmap over the low bits of each block's first eight bytes rules out almost every offset with one load, and
/// the few candidates are compared in full.
struct BlockSet {
    static let size = 4096
    private static let bitmapBits = 1 << 22
    private var bitmap = [UInt64](repeating: 0, count: bitmapBits / 64)
    private var blocks: [UInt64: [[UInt8]]] = [:]

    /// Every whole block of `data` at offsets that are multiples of ``size``.
    mutating func insert(blocksOf data: [UInt8]) {
        for start in stride(from: 0, through: data.count - Self.size, by: Self.size) {
            let block = Array(data[start..<(start + Self.size)])
            let word = block.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            let bit = Int(word & UInt64(Self.bitmapBits - 1))
            bitmap[bit >> 6] |= 1 << UInt64(bit & 63)
            blocks[word, default: []].append(block)
        }
    }

    /// The first offset of `haystack` where one of the blocks starts.
    func firstOffset(in haystack: [UInt8]) -> Int? {
        guard haystack.count >= Self.size else { return nil }
        return haystack.withUnsafeBytes { bytes -> Int? in
            bitmap.withUnsafeBufferPointer { bitmap -> Int? in
                let mask = UInt64(Self.bitmapBits - 1)
                for offset in 0...(bytes.count - Self.size) {
                    let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    let bit = Int(word & mask)
                    guard bitmap[bit >> 6] & (1 << UInt64(bit & 63)) != 0, let candidates = blocks[word] else {
                        continue
                    }
                    let window = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Self.size)])
                    if candidates.contains(where: { $0.withUnsafeBytes { window.elementsEqual($0) } }) {
                        return offset
                    }
                }
                return nil
            }
        }
    }
}
