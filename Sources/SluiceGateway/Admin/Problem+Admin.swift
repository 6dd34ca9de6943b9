import SluiceCore

extension Problem {
    /// 401: the admin bearer token is missing or wrong (docs/api.md, Admin API).
    static func unauthorized(_ detail: String) -> Problem {
        Problem(slug: "unauthorized", title: "Unauthorized", status: 401, detail: detail)
    }

    /// 409: the request conflicts with work in progress.
    static func conflict(_ detail: String) -> Problem {
        Problem(slug: "conflict", title: "Conflict", status: 409, detail: detail)
    }
}
