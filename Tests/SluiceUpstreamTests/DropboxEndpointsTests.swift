import SluiceCore
import Testing

@testable import SluiceUpstream

struct DropboxEndpointsTests {
    @Test(
        arguments: [
            (
                nil, "https://api.dropboxapi.com/oauth2/token",
                "https://www.dropbox.com/oauth2/authorize?token_access_type=offline"
            ),
            (
                "http://127.0.0.1:9/oauth2/token", "http://127.0.0.1:9/oauth2/token",
                "http://127.0.0.1:9/oauth2/authorize?token_access_type=offline"
            ),
        ] as [(String?, String, String)])
    func offlineAccessWithoutADeviceFlow(tokenURL: String?, token: String, authorize: String) {
        let endpoints = OAuth2Endpoints.dropbox(tokenURL: tokenURL)
        #expect(endpoints == OAuth2Endpoints(token: token, deviceAuthorization: nil, authorize: authorize))
    }

    @Test func theAuthorizeURLKeepsOfflineAccessBesideTheRequest() {
        let request = AuthorizationCodeRequest(
            upstream: "dbx", endpoint: OAuth2Endpoints.dropbox(tokenURL: nil).authorize, clientID: Secret("key"),
            scope: DropboxUpstream.defaultScope, redirectURI: "http://127.0.0.1:5000/")
        #expect(
            request.url.hasPrefix("https://www.dropbox.com/oauth2/authorize?token_access_type=offline&client_id=key&"))
        #expect(request.url.contains("scope=files.metadata.read+files.content.read"))
    }
}
