extension UInt8 {
    /// The value of an ASCII decimal digit, or nil.
    var decimalDigitValue: UInt8? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) ? self - UInt8(ascii: "0") : nil
    }

    /// The value of an ASCII hexadecimal digit of either case, or nil.
    var hexDigitValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
