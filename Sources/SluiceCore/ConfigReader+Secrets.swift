extension ConfigReader {
    /// Resolves the secret `name` of `object` from `nameEnv` (an environment variable) or `nameFile` (a path).
    /// Exactly one must be given when `required`. Errors name the key and the variable or file, never the value.
    func secret(_ object: [String: Any], _ name: String, at parent: String, required: Bool) -> Secret? {
        let envKey = name + "Env"
        let fileKey = name + "File"
        let variable = string(object, envKey, at: parent)
        let file = string(object, fileKey, at: parent)
        switch (variable, file) {
        case (nil, nil):
            if required && object[envKey] == nil && object[fileKey] == nil {
                fail(parent, "missing \(envKey) or \(fileKey)")
            }
            return nil
        case (.some, .some):
            fail(parent, "give either \(envKey) or \(fileKey), not both")
            return nil
        case (let variable?, nil):
            return secret(fromVariable: variable, at: Self.key(parent, envKey))
        case (nil, let file?):
            return secret(fromFile: file, at: Self.key(parent, fileKey))
        }
    }

    /// A secret given as `{"env": NAME}` or `{"file": PATH}` (static header values).
    func secret(reference value: Any, at key: String) -> Secret? {
        guard let object = object(value, at: key, allowed: ["env", "file"]) else { return nil }
        switch (string(object, "env", at: key), string(object, "file", at: key)) {
        case (let variable?, nil): return secret(fromVariable: variable, at: Self.key(key, "env"))
        case (nil, let file?): return secret(fromFile: file, at: Self.key(key, "file"))
        case (.some, .some): fail(key, "give either env or file, not both")
        case (nil, nil): if object["env"] == nil && object["file"] == nil { fail(key, "missing env or file") }
        }
        return nil
    }

    private func secret(fromVariable variable: String, at key: String) -> Secret? {
        guard !variable.isEmpty else {
            fail(key, "expected an environment variable name")
            return nil
        }
        guard let value = environment[variable] else {
            fail(key, "environment variable \(variable) is not set")
            return nil
        }
        guard !value.isEmpty else {
            fail(key, "environment variable \(variable) is empty")
            return nil
        }
        return checked(value, at: key, source: "environment variable \(variable)")
    }

    func secret(fromFile file: String, at key: String) -> Secret? {
        guard !file.isEmpty else {
            fail(key, "expected a file path")
            return nil
        }
        let path = absolutePath(file)
        switch SecretFile.readText(path) {
        case .success(let value):
            checkPrivate(path, at: key)
            return checked(value, at: key, source: "file \(path)")
        case .failure(let problem):
            fail(key, "file \(path) \(problem)")
            return nil
        }
    }

    /// Warns (not refuses) about a secret file group or others may access: containers hand secrets over as such files
    /// (Compose and Swarm mount them 0444, Kubernetes adds its fsGroup), in a file system no other account shares.
    func checkPrivate(_ path: String, at key: String) {
        guard let mode = SecretFile.exposedMode(path) else { return }
        warn(
            key,
            "file \(path) holds a secret and may be read by group or others (mode \(String(mode, radix: 8))): "
                + "chmod 600 \(path)")
    }

    /// Secrets end up in request headers, where a line break or NUL would split the header (RFC 9110 §5.5).
    private func checked(_ value: String, at key: String, source: String) -> Secret? {
        guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            fail(key, "\(source) holds a line break or NUL inside its value")
            return nil
        }
        return Secret(value)
    }
}
