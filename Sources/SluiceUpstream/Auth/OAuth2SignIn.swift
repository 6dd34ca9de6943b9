import Foundation
import SluiceCore

/// Signing an OAuth2 upstream in for the first time (`sluice auth login`): a token pair through the device code
/// flow (RFC 8628) or an authorization code with PKCE, written to the upstream's token file. Drives
/// ``DeviceCodePolling``. Nothing here prints or logs a token, a code or the client secret.
public struct OAuth2SignIn: Sendable {
    /// What the person signing in with a device code is asked to do.
    public struct DevicePrompt: Sendable {
        /// Where to sign in, on any device.
        public let verificationURI: String
        /// What to type there.
        public let userCode: String
        /// How long the code is good for.
        public let lifetime: Duration
    }

    /// The upstream's name.
    public let upstream: String
    private let endpoints: OAuth2Endpoints
    private let scope: String
    private let tokenEndpoint: OAuth2TokenEndpoint
    private let file: TokenFile

    /// Where the pair is written.
    public var tokenFile: String { file.path }

    /// Signs in `config`'s upstream through `client`; throws when the upstream has no OAuth2 sign-in or its token
    /// file's folder cannot take the file (better said before anyone signs in).
    public init(_ config: UpstreamConfig, client: CurlClient) throws(OAuth2SignInError) {
        let oauth: OAuth2Config
        let requests: RequestSettings
        switch config.source {
        case .onedrive(let drive):
            oauth = drive.oauth
            requests = drive.requests
            endpoints = .microsoft(tokenURL: oauth.tokenURL ?? OneDriveUpstream.defaultTokenURL)
            scope = oauth.scope ?? OneDriveUpstream.defaultScope
        case .dropbox(let dropbox):
            oauth = dropbox.drive.oauth
            requests = dropbox.drive.requests
            endpoints = .dropbox(tokenURL: oauth.tokenURL)
            scope = oauth.scope ?? DropboxUpstream.defaultScope
        case .yandexDisk(let disk):
            oauth = disk.drive.oauth
            requests = disk.drive.requests
            endpoints = .yandex(tokenURL: oauth.tokenURL)
            scope = oauth.scope ?? YandexDiskUpstream.defaultScope
        case .googleDrive(let drive):
            guard case .oauth2(let googleOAuth) = drive.auth else {
                throw OAuth2SignInError(
                    "upstream \(config.name) signs in as a service account with its key file: no sign-in is needed, "
                        + "the gateway gets its own tokens")
            }
            oauth = googleOAuth
            requests = drive.requests
            endpoints = .google(tokenURL: oauth.tokenURL)
            scope = oauth.scope ?? GoogleDriveUpstream.defaultScope
        case .box(let box):
            oauth = box.drive.oauth
            requests = box.drive.requests
            endpoints = .box(tokenURL: oauth.tokenURL)
            scope = oauth.scope ?? BoxUpstream.defaultScope
        case .webdav, .http, .directory, .s3:
            throw OAuth2SignInError(
                "upstream \(config.name) does not sign in with OAuth2 (kind \(config.kind.rawValue), auth "
                    + "\(config.source.authType)); only the cloud drive kinds do")
        }
        file = TokenFile(path: oauth.tokenFile)
        do throws(TokenFile.Failure) {
            try file.checkWritable()
        } catch {
            throw OAuth2SignInError("upstream \(config.name): \(error.description)")
        }
        upstream = config.name
        tokenEndpoint = OAuth2TokenEndpoint(
            url: endpoints.token, clientID: oauth.clientID, clientSecret: oauth.clientSecret, scope: scope,
            client: client, timeouts: requests.timeouts)
    }

    /// Asks for a device code, hands `show` what the person must do, polls until they did (or declined, or the code
    /// expired), and writes the pair.
    public func signInWithDeviceCode(show: (DevicePrompt) -> Void) async throws(OAuth2SignInError) {
        let authorization = try await deviceAuthorization()
        show(
            DevicePrompt(
                verificationURI: authorization.verificationURI, userCode: authorization.userCode,
                lifetime: authorization.lifetime))
        var polling = DeviceCodePolling(
            interval: authorization.interval,
            deadline: Date().addingTimeInterval(Double(authorization.lifetime.milliseconds) / 1_000))
        var action = polling.start
        while true {
            switch action {
            case .poll(let delay):
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    throw OAuth2SignInError("upstream \(upstream): the sign-in was interrupted; nothing was saved")
                }
                let grant = endpoints.deviceGrant
                let result = await tokenEndpoint.grant(
                    [("grant_type", grant.grantType), (grant.codeField, authorization.deviceCode.value)],
                    previous: nil)
                action = polling.answered(result, at: Date())
            case .save(let token):
                return try save(token)
            case .fail(let failure):
                throw message(for: failure)
            }
        }
    }

    /// A new authorization code request whose redirect comes back to `redirectURI`.
    public func authorizationRequest(redirectURI: String) -> AuthorizationCodeRequest {
        AuthorizationCodeRequest(
            upstream: upstream, endpoint: endpoints.authorize, clientID: tokenEndpoint.clientID, scope: scope,
            redirectURI: redirectURI)
    }

    /// Exchanges the `code` that came back for `request` (with its PKCE verifier) and writes the pair.
    public func redeem(_ code: Secret, of request: AuthorizationCodeRequest) async throws(OAuth2SignInError) {
        let result = await tokenEndpoint.grant(
            [
                ("grant_type", "authorization_code"), ("code", code.value), ("redirect_uri", request.redirectURI),
                ("code_verifier", request.pkce.verifier.value),
            ], previous: nil)
        switch result {
        case .success(let token): try save(token)
        case .failure(.refused(let code)): throw message(for: .refused(code: code))
        case .failure(.unavailable(let error)): throw message(for: .unavailable(error))
        }
    }

    private func deviceAuthorization() async throws(OAuth2SignInError) -> DeviceAuthorization {
        guard let url = endpoints.deviceAuthorization else {
            throw OAuth2SignInError(
                "upstream \(upstream): this provider has no device code sign-in; use --browser, or --paste on a "
                    + "machine without a browser")
        }
        let response: CurlResponse
        do {
            response = try await tokenEndpoint.post([("scope", scope)], to: url)
        } catch {
            throw OAuth2SignInError(
                "upstream \(upstream): the device authorization endpoint \(url) cannot be reached (\(error)); "
                    + "check the network and tokenURL")
        }
        if let code = OAuth2TokenEndpoint.errorCode(in: response) {
            throw OAuth2SignInError(
                "upstream \(upstream): \(url) refused a device code (\(code)); check the client ID, the scope, and "
                    + "that the app allows public client flows (or sign in with --browser)")
        }
        guard response.head.status == 200, let authorization = DeviceAuthorization(json: response.body) else {
            throw OAuth2SignInError(
                "upstream \(upstream): \(url) answered \(response.head.status) without a usable device code")
        }
        return authorization
    }

    private func save(_ token: OAuth2Token) throws(OAuth2SignInError) {
        do throws(TokenFile.Failure) {
            try file.write(token)
        } catch {
            throw OAuth2SignInError(
                "upstream \(upstream): signed in, but the token pair could not be saved (\(error.description)); "
                    + "fix that and sign in again")
        }
    }

    private func message(for failure: DeviceCodePolling.Failure) -> OAuth2SignInError {
        let again = "run `sluice auth login \(upstream)` again"
        switch failure {
        case .declined:
            return OAuth2SignInError("upstream \(upstream): the sign-in was declined; \(again) and accept it")
        case .expired:
            return OAuth2SignInError(
                "upstream \(upstream): the code expired before the sign-in was approved; \(again) and enter the "
                    + "code sooner")
        case .refused(let code):
            return OAuth2SignInError(
                "upstream \(upstream): the token endpoint \(endpoints.token) refused the sign-in (\(code)); check "
                    + "the client ID, its secret and the scope, then \(again)")
        case .unavailable(let error):
            return OAuth2SignInError(
                "upstream \(upstream): the token endpoint \(endpoints.token) cannot be reached (\(error)); check "
                    + "the network and tokenURL, then \(again)")
        }
    }
}
