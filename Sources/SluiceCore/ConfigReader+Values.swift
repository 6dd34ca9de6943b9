import Foundation

extension ConfigReader {
    /// The value as a JSON object, reporting every key not in `allowed`. A key `x` for which `xEnv` and
    /// `xFile` are allowed is a secret written in the file, reported as such.
    func object(_ value: Any, at key: String, allowed: Set<String>) -> [String: Any]? {
        guard let object = value as? [String: Any] else {
            fail(key, "expected an object")
            return nil
        }
        for name in object.keys.sorted() where !allowed.contains(name) {
            if allowed.contains(name + "Env") && allowed.contains(name + "File") {
                fail(Self.key(key, name), "secrets must come from \(name)Env or \(name)File, not the file itself")
            } else {
                fail(Self.key(key, name), "unknown key")
            }
        }
        return object
    }

    func string(_ object: [String: Any], _ name: String, at parent: String, required: Bool = false) -> String? {
        let key = Self.key(parent, name)
        guard let value = object[name] else {
            if required { fail(key, "missing required key") }
            return nil
        }
        guard let text = value as? String else {
            fail(key, "expected a string")
            return nil
        }
        return text
    }

    func integer(_ object: [String: Any], _ name: String, at parent: String, in bounds: ClosedRange<Int>) -> Int? {
        let key = Self.key(parent, name)
        guard let value = object[name] else { return nil }
        guard let number = Self.jsonInteger(value), let int = Int(exactly: number), bounds.contains(int) else {
            fail(key, "expected a whole number from \(bounds.lowerBound) to \(bounds.upperBound)")
            return nil
        }
        return int
    }

    /// A size string (`"20GiB"`) or a whole number of bytes.
    func size(_ object: [String: Any], _ name: String, at parent: String) -> Int64? {
        let key = Self.key(parent, name)
        guard let value = object[name] else { return nil }
        if let bytes = Self.jsonInteger(value) {
            guard (0...ByteCount.maximum).contains(bytes) else {
                fail(key, "expected a size from 0 to \(ByteCount.maximum) bytes")
                return nil
            }
            return bytes
        }
        guard let text = value as? String else {
            fail(key, "expected a size like \"20GiB\"")
            return nil
        }
        do {
            return try ByteSize.parse(text)
        } catch {
            fail(key, "expected a size like \"20GiB\": \"\(text)\" \(error)")
            return nil
        }
    }

    /// A duration string (`"30s"`); with `positive`, zero is refused.
    func duration(_ object: [String: Any], _ name: String, at parent: String, positive: Bool) -> Duration? {
        let key = Self.key(parent, name)
        guard let value = object[name] else { return nil }
        guard let text = value as? String else {
            fail(key, "expected a duration like \"30s\"")
            return nil
        }
        do {
            let duration = try DurationParser.parse(text)
            if positive && duration == .zero {
                fail(key, "must be longer than zero")
                return nil
            }
            return duration
        } catch {
            fail(key, "expected a duration like \"30s\": \"\(text)\" \(error)")
            return nil
        }
    }

    /// One of `choices`, by raw value.
    func choice<T: RawRepresentable<String> & CaseIterable>(
        _ object: [String: Any], _ name: String, at parent: String, as type: T.Type
    ) -> T? {
        guard let text = string(object, name, at: parent) else { return nil }
        guard let value = T(rawValue: text) else {
            let names = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            fail(Self.key(parent, name), "expected one of \(names)")
            return nil
        }
        return value
    }

    /// A JSON `true` or `false`.
    func bool(_ object: [String: Any], _ name: String, at parent: String) -> Bool? {
        guard let value = object[name] else { return nil }
        // JSONSerialization gives booleans as numbers marked "c"; 0 and 1 are integers, not booleans.
        guard let number = value as? NSNumber, String(cString: number.objCType) == "c" else {
            fail(Self.key(parent, name), "expected true or false")
            return nil
        }
        return number.boolValue
    }

    /// A JSON number (whole or fractional, not a boolean) in `bounds`.
    func number(_ object: [String: Any], _ name: String, at parent: String, in bounds: ClosedRange<Double>) -> Double? {
        guard let value = object[name] else { return nil }
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c",
            bounds.contains(number.doubleValue)
        else {
            let text = { (bound: Double) in Int(exactly: bound).map(String.init) ?? String(bound) }
            fail(
                Self.key(parent, name),
                "expected a number from \(text(bounds.lowerBound)) to \(text(bounds.upperBound))")
            return nil
        }
        return number.doubleValue
    }

    /// A JSON integer (not a boolean, not a fraction) that fits in Int64.
    private static func jsonInteger(_ value: Any) -> Int64? {
        guard let number = value as? NSNumber else { return nil }
        // JSONSerialization marks booleans "c" and fractional numbers "d"; integers are "i" or "q".
        let kind = String(cString: number.objCType)
        guard kind != "c", kind != "d", kind != "f" else { return nil }
        return number.int64Value
    }
}
