import CMicroHTTPD

/// The certificate chain and private key (PEM) a TLS listener presents. No textual form shows the key.
public struct TLSCredentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The server certificate, then any intermediates.
    public let certificatePEM: String
    private let keyPEM: String

    /// Credentials from PEM texts; ``validate()`` tells whether libmicrohttpd accepts them.
    public init(certificatePEM: String, keyPEM: String) {
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
    }

    /// GnuTLS priorities: its NORMAL ciphers and groups, TLS 1.3 and 1.2 only.
    static let priorities = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

    /// Without the key.
    public var description: String { "TLSCredentials(key: <redacted>)" }
    /// Without the key.
    public var debugDescription: String { description }

    /// Loads the pair the way a serving daemon will, and throws ``HTTPServerError/tlsRejected(_:)`` with GnuTLS's
    /// reason (a key that does not match the certificate, a PEM that does not parse) when it is not usable.
    public func validate() throws(HTTPServerError) {
        var message = [CChar](repeating: 0, count: Int(SLUICE_MHD_MESSAGE_CAPACITY))
        let status = withCStrings { certificate, key, priorities in
            sluice_mhd_check_tls(certificate, key, priorities, &message)
        }
        guard status != 0 else { return }
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // libmicrohttpd's first line names GnuTLS's error; the next only says that TLS could not start.
        let reason = text.split(separator: "\n").first.map(String.init) ?? "libmicrohttpd refused the pair"
        throw .tlsRejected(reason)
    }

    /// Runs `body` with `items` (ending with `MHD_OPTION_END`) and the options that load these credentials before
    /// the end; the strings they point to live until `body` returns, which is all libmicrohttpd needs (it hands
    /// them to GnuTLS, which copies them, while the daemon starts).
    func withOptions<R>(
        appendedTo items: [MHD_OptionItem], _ body: (UnsafeMutablePointer<MHD_OptionItem>) -> R
    ) -> R {
        withCStrings { certificate, key, priorities in
            var all = Array(items.dropLast())
            for (option, text) in [
                (MHD_OPTION.HTTPS_MEM_CERT, certificate), (.HTTPS_MEM_KEY, key), (.HTTPS_PRIORITIES, priorities),
            ] {
                all.append(MHD_OptionItem(option: option, value: 0, ptr_value: UnsafeMutableRawPointer(mutating: text)))
            }
            all.append(contentsOf: items.suffix(1))
            return all.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
        }
    }

    private func withCStrings<R>(
        _ body: (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafePointer<CChar>) -> R
    ) -> R {
        certificatePEM.withCString { certificate in
            keyPEM.withCString { key in
                Self.priorities.withCString { priorities in body(certificate, key, priorities) }
            }
        }
    }
}
