extension ConfigReader {
    /// `{"certificateFile": PATH, "keyFile": PATH}`, both files read and checked now, so that `check-config` and
    /// start-up report a bad file by its key.
    func tls(_ value: Any, at key: String) -> TLSConfig? {
        guard let object = object(value, at: key, allowed: ["certificateFile", "keyFile"]) else { return nil }
        let certificate = string(object, "certificateFile", at: key, required: true)
        let keyFile = string(object, "keyFile", at: key, required: true)
        guard let certificate, let keyFile else { return nil }
        for (name, path) in [("certificateFile", certificate), ("keyFile", keyFile)] where path.isEmpty {
            fail(Self.key(key, name), "expected a file path")
        }
        guard !certificate.isEmpty, !keyFile.isEmpty else { return nil }
        let config = TLSConfig(certificateFile: absolutePath(certificate), keyFile: absolutePath(keyFile))
        if case .failure(let error) = config.read() {
            fail(Self.key(key, error.field), error.message)
            return nil
        }
        checkPrivate(config.keyFile, at: Self.key(key, "keyFile"))
        return config
    }
}
