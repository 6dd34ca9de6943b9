/// A `google-drive` upstream: a Google account's My Drive, or one shared drive, through the Drive API v3, signed in
/// as a person (OAuth2) or as a service account (a JSON key).
public struct GoogleDriveConfig: Sendable {
    /// Who the gateway is to Google.
    public var auth: GoogleDriveAuth
    /// The API's base URL when not `https://www.googleapis.com/drive/v3/` (proxies, emulators; ends with `/`).
    public var apiBaseURL: String?
    /// Timeouts and concurrency.
    public var requests = RequestSettings()
    /// The shared drive that asset paths start from, when not My Drive.
    public var driveID: String?
    /// Whether a file Google flags as malware or spam is downloaded anyway (`acknowledgeAbuse=true`), which Google
    /// allows only its owner or a manager of its shared drive.
    public var acknowledgeAbuse = false
    /// Resource keys of link-shared files by file ID, sent as `X-Goog-Drive-Resource-Keys` (values are secrets:
    /// they are part of the sharing link).
    public var resourceKeys: [String: Secret] = [:]

    /// A drive reached as `auth` says.
    public init(auth: GoogleDriveAuth) {
        self.auth = auth
    }

    /// Whether `text` can be a Drive file ID, shared drive ID or resource key: Drive's are URL-safe tokens, and
    /// anything else would not fit a header or a query unescaped.
    public static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 256
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }
}

/// How a `google-drive` upstream signs in (`auth.type`).
public enum GoogleDriveAuth: Sendable, Equatable {
    /// A person's account: a token pair from `sluice auth login`.
    case oauth2(OAuth2Config)
    /// A service account: tokens minted from its private key, no sign-in.
    case serviceAccount(ServiceAccountConfig)

    /// The `type` name as written in the config.
    public var typeName: String {
        switch self {
        case .oauth2: "oauth2"
        case .serviceAccount: "serviceAccount"
        }
    }
}

/// A Google service account key (`auth` with `"type": "serviceAccount"`): the key file's `client_email` and
/// `private_key`, the token endpoint, and whom to act for.
public struct ServiceAccountConfig: Sendable, Equatable {
    /// The key file (absolute), for messages.
    public var keyFile: String
    /// The account's e-mail address, the assertion's issuer.
    public var clientEmail: String
    /// The key file's `private_key_id`, sent as the assertion's `kid` when present.
    public var keyID: String?
    /// The PEM private key (PKCS #8) the assertions are signed with.
    public var privateKey: Secret
    /// The user a Workspace domain-wide delegation acts for (the assertion's `sub`); nil acts as the account itself.
    public var subject: String?
    /// The token endpoint, when not Google's.
    public var tokenURL: String?
    /// The scope asked for, when not the kind's own.
    public var scope: String?

    /// A key for `clientEmail` read from `keyFile`.
    public init(keyFile: String, clientEmail: String, keyID: String? = nil, privateKey: Secret) {
        self.keyFile = keyFile
        self.clientEmail = clientEmail
        self.keyID = keyID
        self.privateKey = privateKey
    }
}
