import SluiceHTTP

extension HTTPResponse {
    /// A JSON admin document.
    static func document<Value: Encodable>(_ value: Value, status: Int = 200) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: ["Content-Type": "application/json"], body: .bytes(AdminJSON.encode(value)))
    }
}
