/// The top-level boxes of an ISO BMFF (MP4) file (ISO/IEC 14496-12 §4.2: 32-bit size and type, size 1 means a
/// 64-bit size follows, size 0 means to the end of the file).
struct MP4Atoms {
    /// Type and offset of each top-level box, in file order.
    let boxes: [(type: String, offset: Int)]

    /// Scans `bytes`.
    init(_ bytes: [UInt8]) {
        func integer(_ at: Int, _ count: Int) -> Int {
            bytes[at..<at + count].reduce(0) { $0 << 8 | Int($1) }
        }
        var boxes: [(String, Int)] = []
        var offset = 0
        while offset + 8 <= bytes.count {
            var size = integer(offset, 4)
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            if size == 1, offset + 16 <= bytes.count { size = integer(offset + 8, 8) }
            if size == 0 { size = bytes.count - offset }
            boxes.append((type, offset))
            guard size >= 8 else { break }
            offset += size
        }
        self.boxes = boxes
    }

    /// The offset of the first box of `type`.
    func offset(of type: String) -> Int? {
        boxes.first { $0.type == type }?.offset
    }
}
