import SluiceCrypto
import Testing

@Suite struct CRC32Tests {
    @Test(arguments: [
        ("", UInt32(0)),
        ("123456789", UInt32(0xCBF4_3926)),
        ("The quick brown fox jumps over the lazy dog", UInt32(0x414F_A339)),
    ])
    func knownValues(text: String, crc: UInt32) {
        #expect(CRC32.checksum(Array(text.utf8)) == crc)
    }

    @Test func continuingEqualsWhole() {
        let bytes = Array("123456789".utf8)
        #expect(CRC32.checksum(Array(bytes[4...]), continuing: CRC32.checksum(Array(bytes[..<4]))) == 0xCBF4_3926)
    }
}
