import Foundation

extension ConfigReader {
    /// `redirectHosts`: a list of origins (`https://cdn.example.com`, `http://10.0.0.5:8080`), each as
    /// `scheme://host[:port]` with nothing after it, since a redirect is allowed by where it connects, not by path.
    /// Entries are returned as written (the upstream reads them with libcurl's parser, as it reads the URLs it
    /// fetches); entries in error are reported and left out.
    func readRedirectHosts(_ value: Any, at key: String) -> [String] {
        guard let entries = value as? [Any] else {
            fail(key, "expected a list of origins like \"https://cdn.example.com\"")
            return []
        }
        return entries.enumerated().compactMap { index, entry in
            redirectHost(entry, at: "\(key)[\(index)]")
        }
    }

    private func redirectHost(_ value: Any, at key: String) -> String? {
        guard let text = value as? String else {
            fail(key, "expected a string")
            return nil
        }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            fail(key, "expected an http:// or https:// origin like \"https://cdn.example.com\"")
            return nil
        }
        guard url.user == nil, url.password == nil, !text.contains("@") else {
            fail(key, "must not hold credentials: a redirect never carries any")
            return nil
        }
        guard url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil else {
            fail(key, "must be an origin only (scheme, host, port), without a path, query or fragment")
            return nil
        }
        return text.hasSuffix("/") ? String(text.dropLast()) : text
    }
}
